package dev.cotenant.gateway.probe;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The arguments of a probe call: a JSON object whose string values may hold the placeholders
 * {@value #MARKER}, {@value #WORKSPACE} and {@value #SCRATCH}, substituted per call at any depth
 * (object keys are left alone). Immutable and thread-safe.
 */
public final class ArgumentTemplate {
  /** Replaced by the calling caller's marker. */
  public static final String MARKER = "{marker}";

  /** Replaced by the calling caller's workspace value. */
  public static final String WORKSPACE = "{workspace}";

  /**
   * Replaced by the absolute path of a directory of the calling caller's own, made for the call in
   * the backend's scratch directory and named after the caller's marker; the single-tool probe,
   * which has no scratch directory, puts the workspace value there instead.
   */
  public static final String SCRATCH = "{scratch}";

  /** The deepest template accepted. */
  static final int MAX_DEPTH = 32;

  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private final Map<String, @Nullable Object> template;
  private final String text;

  private ArgumentTemplate(Map<String, @Nullable Object> template, String text) {
    this.template = template;
    this.text = text;
  }

  /**
   * Parses a template.
   *
   * @param what names the template in messages (e.g. {@code --args})
   * @throws IllegalArgumentException naming {@code what} when the text is not a JSON object
   */
  public static ArgumentTemplate parse(String what, String json) {
    Objects.requireNonNull(json, "json");
    Object parsed;
    try {
      parsed = MAPPER.readValue(json, Object.class);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(what + " is not valid JSON: " + LogSafe.escape(e.getOriginalMessage(), 200), e);
    }
    if (!(parsed instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(what + " must be a JSON object of tool arguments, got " + LogSafe.escape(json, 80));
    }
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> map = (Map<String, @Nullable Object>) parsed;
    return new ArgumentTemplate(Collections.unmodifiableMap(new LinkedHashMap<>(map)), json);
  }

  /**
   * A template from an already-parsed JSON object: maps with string keys, lists, strings,
   * numbers, booleans, and {@link Json#NULL} or Java {@code null} for JSON {@code null}. The
   * object is copied, so later changes to {@code template} do not reach the result; its nesting
   * depth is bounded as in {@link #parse} (the object itself is level 1, at most {@value
   * #MAX_DEPTH} levels). {@link #toString()} gives its JSON text.
   *
   * @throws IllegalArgumentException when the object nests deeper than {@value #MAX_DEPTH}
   *     levels, or holds a value that is not JSON (a non-finite number, a map key that is not a
   *     string, any other Java object)
   */
  public static ArgumentTemplate of(Map<String, ?> template) {
    Objects.requireNonNull(template, "template");
    check(template, 1, "");
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> copy = (Map<String, @Nullable Object>) Json.thaw(template);
    return new ArgumentTemplate(Collections.unmodifiableMap(copy), MAPPER.writeValueAsString(copy));
  }

  /** Refuses what {@link #of} cannot hold; {@code path} names the value in messages. */
  private static void check(@Nullable Object v, int depth, String path) {
    if (v instanceof Map<?, ?> || v instanceof List<?>) {
      if (depth > MAX_DEPTH) {
        throw new IllegalArgumentException(
            "the argument template nests deeper than " + MAX_DEPTH + " levels at " + where(path));
      }
      if (v instanceof Map<?, ?>) {
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (!(e.getKey() instanceof String)) {
            throw new IllegalArgumentException(
                "the argument template has a key that is not a string at " + where(path) + ": "
                    + (e.getKey() == null ? "null" : e.getKey().getClass().getName()));
          }
          check(e.getValue(), depth + 1, path + "/" + ((String) e.getKey()).replace("~", "~0").replace("/", "~1"));
        }
      } else {
        int i = 0;
        for (Object x : (List<?>) v) {
          check(x, depth + 1, path + "/" + i++);
        }
      }
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new IllegalArgumentException(
            "the argument template holds " + d + " at " + where(path) + ", which JSON cannot hold");
      }
    } else if (!(v == null || v == Json.NULL || v instanceof String || v instanceof Boolean
        || v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof BigInteger || v instanceof BigDecimal)) {
      throw new IllegalArgumentException(
          "the argument template holds a " + v.getClass().getName() + " at " + where(path)
              + ", which is not a JSON value");
    }
  }

  /** A JSON Pointer to a value, escaped for a message; {@code (the top level)} for the root. */
  private static String where(String path) {
    return path.isEmpty() ? "the top level" : LogSafe.escape(path, 120);
  }

  /** The empty template {@code {}}. */
  public static ArgumentTemplate empty() {
    return new ArgumentTemplate(Map.of(), "{}");
  }

  /** True when some string value, at any depth, contains {@value #MARKER}. */
  public boolean carriesMarker() {
    return contains(template, MARKER);
  }

  /**
   * The arguments for one call: every placeholder in every string value replaced, {@value #SCRATCH}
   * by the workspace value.
   */
  public Map<String, @Nullable Object> render(String marker, String workspace) {
    return render(marker, workspace, workspace);
  }

  /** The arguments for one call: every placeholder in every string value replaced. */
  public Map<String, @Nullable Object> render(String marker, String workspace, String scratch) {
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> out = (Map<String, @Nullable Object>) substitute(template, marker, workspace, scratch);
    return out;
  }

  /** The top-level names whose values are strings. */
  List<String> stringKeys() {
    return template.entrySet().stream().filter(e -> e.getValue() instanceof String).map(Map.Entry::getKey).toList();
  }

  /** A copy with the top-level {@code key} set to the string {@code value}. */
  ArgumentTemplate with(String key, String value) {
    Map<String, @Nullable Object> m = new LinkedHashMap<>(template);
    m.put(key, value);
    return of(m);
  }

  /** True when some string value, at any depth, contains {@value #SCRATCH}. */
  public boolean carriesScratch() {
    return contains(template, SCRATCH);
  }

  private static @Nullable Object substitute(@Nullable Object v, String marker, String workspace, String scratch) {
    if (v instanceof String) {
      return ((String) v).replace(SCRATCH, scratch).replace(MARKER, marker).replace(WORKSPACE, workspace);
    }
    if (v instanceof Map<?, ?>) {
      Map<String, @Nullable Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put(String.valueOf(k), substitute(x, marker, workspace, scratch)));
      return m;
    }
    if (v instanceof List<?>) {
      List<@Nullable Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(substitute(x, marker, workspace, scratch)));
      return l;
    }
    return v;
  }

  private static boolean contains(@Nullable Object v, String placeholder) {
    if (v instanceof String) {
      return ((String) v).contains(placeholder);
    }
    if (v instanceof Map<?, ?>) {
      return ((Map<?, ?>) v).values().stream().anyMatch(x -> contains(x, placeholder));
    }
    if (v instanceof List<?>) {
      return ((List<?>) v).stream().anyMatch(x -> contains(x, placeholder));
    }
    return false;
  }

  /** The template as given to {@link #parse}, or the JSON text of the object given to {@link #of}. */
  @Override
  public String toString() {
    return text;
  }

  /** Equal when the same arguments, with the same placeholders: their JSON text is the same. */
  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof ArgumentTemplate && ((ArgumentTemplate) o).text.equals(text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }
}
