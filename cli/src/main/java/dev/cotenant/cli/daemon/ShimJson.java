package dev.cotenant.cli.daemon;

import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.core.json.JsonFactory;

/**
 * The little JSON the shim reads and writes, with Jackson's streaming parser only: the shim loads
 * no data binding, so it starts and runs in as little memory as a JVM allows. It reads the
 * top-level {@code id}, {@code method} and a few hello fields of a message, never the rest.
 */
final class ShimJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private ShimJson() {}

  /**
   * The top-level fields of one JSON object that the shim looks at.
   *
   * @param id the {@code id} as JSON text ({@code 7}, {@code "a"}, {@code null}), null when absent
   * @param method the {@code method}, null when absent
   * @param strings the other top-level string fields asked for, in the order asked
   * @param numbers the top-level number fields asked for, as long, -1 when absent
   */
  record Peek(@Nullable String id, @Nullable String method, String[] strings, long[] numbers) {}

  /**
   * Peeks at a line; null when it is not a JSON object.
   *
   * @param stringFields names of top-level string fields to return
   * @param numberFields names of top-level number fields to return
   */
  static @Nullable Peek peek(byte[] line, List<String> stringFields, List<String> numberFields) {
    String id = null;
    String method = null;
    String[] strings = new String[stringFields.size()];
    long[] numbers = new long[numberFields.size()];
    java.util.Arrays.fill(numbers, -1);
    try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (name.equals("id")) {
          id = switch (v) {
            case VALUE_STRING -> quote(p.getString());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getString();
            case VALUE_NULL -> "null";
            default -> null;
          };
        } else if (name.equals("method") && v == JsonToken.VALUE_STRING) {
          method = p.getString();
        } else if (v == JsonToken.VALUE_STRING && stringFields.contains(name)) {
          strings[stringFields.indexOf(name)] = p.getString();
        } else if (v == JsonToken.VALUE_NUMBER_INT && numberFields.contains(name)) {
          numbers[numberFields.indexOf(name)] = p.getLongValue();
        }
        p.skipChildren();
      }
      return t == JsonToken.END_OBJECT ? new Peek(id, method, strings, numbers) : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  /** {@code s} as a JSON string literal. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, b);
    return b.append('"').toString();
  }

  /** The shim's hello (see {@link Wire}), naming this process's id. */
  static byte[] hello(String server, List<String> configs) {
    return hello(server, configs, null);
  }

  /**
   * The shim's hello, naming this process's id; with {@code resume} (the client's {@code initialize} line, a JSON object as
   * the client sent it) it asks to resume the session on this daemon (see {@link Wire}).
   */
  static byte[] hello(String server, List<String> configs, byte @Nullable [] resume) {
    StringBuilder b = new StringBuilder("{\"cotenant\":\"connect\",\"version\":").append(Wire.VERSION)
        .append(",\"server\":").append(quote(server)).append(",\"configs\":[");
    for (int i = 0; i < configs.size(); i++) {
      b.append(i == 0 ? "" : ",").append(quote(configs.get(i)));
    }
    b.append("],\"pid\":").append(ProcessHandle.current().pid());
    if (resume != null) {
      b.append(",\"resume\":").append(new String(resume, java.nio.charset.StandardCharsets.UTF_8));
    }
    return b.append("}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A JSON-RPC error answer to the request whose id is {@code idJson}. */
  static byte[] error(String idJson, int code, String message) {
    return ("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"error\":{\"code\":" + code + ",\"message\":" + quote(message) + "}}")
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
