package dev.cotenant.gateway.probe;

import dev.cotenant.api.LogSafe;
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
 * {@value #MARKER} and {@value #WORKSPACE}, substituted per call at any depth (object keys are
 * left alone). Immutable and thread-safe.
 */
public final class ArgumentTemplate {
  /** Replaced by the calling caller's marker. */
  public static final String MARKER = "{marker}";

  /** Replaced by the calling caller's workspace value. */
  public static final String WORKSPACE = "{workspace}";

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

  /** The empty template {@code {}}. */
  public static ArgumentTemplate empty() {
    return new ArgumentTemplate(Map.of(), "{}");
  }

  /** True when some string value, at any depth, contains {@value #MARKER}. */
  public boolean carriesMarker() {
    return contains(template, MARKER);
  }

  /** The arguments for one call: every placeholder in every string value replaced. */
  public Map<String, @Nullable Object> render(String marker, String workspace) {
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> out = (Map<String, @Nullable Object>) substitute(template, marker, workspace);
    return out;
  }

  private static @Nullable Object substitute(@Nullable Object v, String marker, String workspace) {
    if (v instanceof String) {
      return ((String) v).replace(MARKER, marker).replace(WORKSPACE, workspace);
    }
    if (v instanceof Map<?, ?>) {
      Map<String, @Nullable Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put(String.valueOf(k), substitute(x, marker, workspace)));
      return m;
    }
    if (v instanceof List<?>) {
      List<@Nullable Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(substitute(x, marker, workspace)));
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

  /** The template as given. */
  @Override
  public String toString() {
    return text;
  }
}
