package dev.cotenant.gateway.probe;

import dev.cotenant.api.Json;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Keeps secrets out of a whole-surface probe's report: the values of the env names
 * {@link SecretPatterns} calls secret (the probe's own environment and the server's, at least four
 * characters), longest first, are replaced by {@value #REDACTED} in every answer as it is kept and
 * in every text a report shows. Immutable.
 */
final class Redactor {
  static final String REDACTED = "<redacted>";

  /** The values of the secret env names the backends see, longest first. */
  private final List<String> secretValues;

  Redactor(ServerDescription server, SecretPatterns secrets) {
    List<String> values = new ArrayList<>();
    Map<String, String> env = new TreeMap<>(System.getenv());
    env.putAll(server.env());
    env.forEach((k, v) -> {
      if (secrets.isSecret(k) && v.length() >= 4) {
        values.add(v);
      }
    });
    values.sort(Comparator.comparingInt(String::length).reversed());
    this.secretValues = List.copyOf(values);
  }

  /** {@code text} with every secret value replaced. */
  String redact(String text) {
    String out = text;
    for (String secret : secretValues) {
      out = out.replace(secret, REDACTED);
    }
    return out;
  }

  /**
   * An answer as it is kept: the caller's view ({@link #normal}) with every secret value
   * replaced in every string and key, before anything is compared or excerpted, so that no
   * part of a secret reaches a report.
   */
  Map<String, Object> kept(RpcMessage.Response answer) {
    return kept(normal(answer));
  }

  /** {@link #kept(RpcMessage.Response)} of an answer already in the caller's view. */
  Map<String, Object> kept(Map<String, Object> normal) {
    @SuppressWarnings("unchecked")
    Map<String, Object> out = (Map<String, Object>) scrub(normal);
    return out;
  }

  private Object scrub(@Nullable Object value) {
    if (secretValues.isEmpty()) {
      return value == null ? Json.NULL : value;
    }
    if (value instanceof String s) {
      return redact(s);
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> m = new LinkedHashMap<>();
      map.forEach((k, v) -> m.put(redact(String.valueOf(k)), scrub(v)));
      return m;
    }
    if (value instanceof List<?> list) {
      List<Object> l = new ArrayList<>();
      list.forEach(v -> l.add(scrub(v)));
      return l;
    }
    return value == null ? Json.NULL : value;
  }

  /** A response reduced to what a caller sees of it: {@code {"result": ...}} or {@code {"error": ...}}. */
  static Map<String, Object> normal(RpcMessage.Response answer) {
    if (answer.isError()) {
      return Map.of("error", answer.json().get("error"));
    }
    return Map.of("result", answer.result() == null ? Json.NULL : answer.result());
  }
}
