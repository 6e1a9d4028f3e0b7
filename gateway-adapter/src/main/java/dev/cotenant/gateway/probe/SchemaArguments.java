package dev.cotenant.gateway.probe;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of a tool call synthesised from the tool's {@code inputSchema} (JSON Schema, as
 * draft-07 or 2020-12 schemas are written by zod, pydantic and the MCP SDKs), as an {@link
 * ArgumentTemplate} whose strings carry {@value ArgumentTemplate#MARKER} and {@value
 * ArgumentTemplate#WORKSPACE}. No value ever points at the network. Pure, static and
 * thread-safe; the input is plain JSON ({@link Json#NULL} or Java {@code null} for JSON
 * {@code null}) and is not changed.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li><b>Top level.</b> The schema must be an object schema: {@code "type": "object"}, or no
 *       {@code type} and a {@code properties} object. Anything else is unsupported. Without
 *       {@code properties} the arguments are {@code {}}.
 *   <li><b>Required and optional properties.</b> Every property named in {@code required} must
 *       get a valid value, or the whole schema is unsupported ({@code required property `p`:
 *       why}); a required property missing from {@code properties} takes its schema from
 *       {@code additionalProperties} (free text when that is absent or {@code true}). Of the
 *       optional properties, strings that take free text or a supported {@code format} are
 *       included (they carry the marker: more places a leak can show), and numbers and integers
 *       are included with their smallest valid value (so a {@code duration} or a {@code count} is
 *       small and the call is quick); optional booleans, nulls, enums, consts, objects and arrays
 *       are omitted (the server's default applies), and so is an optional property whose value
 *       cannot be synthesised or whose string would only be valid as its {@code default}.
 *   <li><b>Choosing the schema.</b> {@code const} gives the const and {@code enum} its first
 *       value; otherwise the {@code type} decides. A type array such as {@code ["string",
 *       "null"]} takes its first type other than {@code null}. Without {@code type}, the keywords
 *       decide: {@code properties} or {@code required} make an object, {@code items} or {@code
 *       prefixItems} an array, {@code pattern}, {@code format}, {@code minLength} or {@code
 *       maxLength} a string, {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code
 *       exclusiveMaximum} or {@code multipleOf} a number; a schema with none of them (or {@code
 *       true}) takes free text, and {@code false} takes nothing. {@code anyOf} and {@code oneOf}
 *       take the first alternative that synthesises (for an optional property, an alternative of
 *       a kind that is omitted decides too, so pydantic's {@code Optional[bool]}, {@code
 *       anyOf: [boolean, null]}, is omitted); {@code allOf} with one schema takes that
 *       schema, with more it is unsupported. A local {@code $ref} ({@code #/$defs/...}, {@code
 *       #/definitions/...}, any other JSON Pointer into the schema, or {@code #}) is resolved
 *       against the top-level schema; any other reference is unsupported. An alternative, an
 *       {@code allOf} schema or a reference target is read together with the keywords beside it
 *       (beside keywords win).
 *   <li><b>Strings</b> by {@code format}: {@code uri}, {@code url}, {@code iri}, {@code
 *       uri-reference} and {@code iri-reference} give {@code data:text/plain,{marker}} (never a
 *       network address); {@code email} and {@code idn-email} {@code {marker}@example.invalid};
 *       {@code hostname} and {@code idn-hostname} {@code {marker}.invalid}; {@code date-time}
 *       {@code 2026-01-01T00:00:00Z}; {@code date} {@code 2026-01-01}; {@code time} {@code
 *       00:00:00Z}; {@code uuid} {@code 00000000-0000-4000-8000-000000000000}; {@code ipv4}
 *       {@code 127.0.0.1}; {@code ipv6} {@code ::1}. Other formats, and strings without one,
 *       take free text: {@code {workspace}} for a property whose name, ignoring case, is or ends
 *       with {@code workspace}, {@code session}, {@code sessionid}, {@code session_id}, {@code
 *       scope}, {@code tenant}, {@code namespace} or {@code project} (array items go by their
 *       array's name), and {@code {marker}} otherwise. The value must satisfy {@code pattern}
 *       (matched anywhere in the value, as {@link java.util.regex.Matcher#find()} does), {@code
 *       minLength} and {@code maxLength} (in code points) with the placeholders substituted, both
 *       with the shortest caller values ({@value #SAMPLE_MARKER}, {@value #SAMPLE_WORKSPACE}) and
 *       with the longest ({@value #MAX_MARKER_LENGTH} and {@value #MAX_WORKSPACE_LENGTH}
 *       characters). When it does not, a required string takes its {@code default}, or else the
 *       first of its {@code examples}, when that satisfies them, or else a string generated to
 *       match its {@code pattern} ({@link #generated}); otherwise the schema is unsupported. A pattern Java cannot compile, or one too costly to match, is unsupported.
 *   <li><b>Integers and numbers</b> take the smallest valid value of at least 1 within {@code
 *       minimum}, {@code maximum}, {@code exclusiveMinimum} and {@code exclusiveMaximum} (as
 *       numbers, or in the draft-04 form as booleans qualifying {@code minimum} and {@code
 *       maximum}) that is a multiple of {@code multipleOf} (of the first 1,000 multiples from the
 *       lower bound up); for a number whose lower bound is an exclusive one above 1, the next
 *       whole number above it. When no value of at least 1 is valid, a required one takes its
 *       {@code default}, or else the first of its {@code examples}, when that is valid; otherwise
 *       the schema is unsupported.
 *   <li><b>Booleans</b> are {@code false}; <b>nulls</b> JSON {@code null}.
 *   <li><b>Arrays</b> (required) hold {@code minItems} items, and at least one where
 *       {@code maxItems} allows it and the item can be synthesised (an empty list writes nothing,
 *       and what is not written cannot be seen to leak), synthesised from
 *       {@code items}, or item by item from {@code prefixItems} (or a draft-07 {@code items}
 *       array) and then {@code items} (or {@code additionalItems}). Unsupported: an item that
 *       cannot be synthesised, more than {@value #MAX_ITEMS} items, {@code maxItems} below
 *       {@code minItems}, {@code uniqueItems} with {@code minItems} above 1 (the items would be
 *       equal) and {@code contains}.
 *   <li><b>Objects</b> (required) follow the same rules as the top level; fewer properties than
 *       {@code minProperties} is unsupported.
 *   <li><b>Bounds.</b> Schemas nested deeper than {@value #MAX_DEPTH} levels (each property,
 *       item, alternative and reference is a level, so a recursive schema ends here), and schemas
 *       that take more than {@value #MAX_STEPS} steps, are unsupported.
 * </ul>
 *
 * <p>Other keywords (such as {@code not}, {@code if}, {@code dependentRequired} or {@code
 * patternProperties}) are not considered.
 */
final class SchemaArguments {
  /** The deepest schema followed. */
  static final int MAX_DEPTH = 16;

  /** The most schema steps one synthesis takes. */
  static final int MAX_STEPS = 10_000;

  /** The most items of one synthesised array. */
  static final int MAX_ITEMS = 100;

  /** The longest marker a probe sends. */
  static final int MAX_MARKER_LENGTH = 24;

  /** The longest workspace value a probe sends. */
  static final int MAX_WORKSPACE_LENGTH = 40;

  /** A marker as the probe sends it, and the shortest it sends. */
  static final String SAMPLE_MARKER = "alpha-1-0a1b2c3d";

  /** A workspace value as the probe sends it, and the shortest it sends. */
  static final String SAMPLE_WORKSPACE = "cotenant-probe-a-0a1b2c3d-1";

  /** A marker of {@value #MAX_MARKER_LENGTH} characters. */
  static final String LONGEST_MARKER = "bravo-123456789-0a1b2c3d";

  /** A workspace value of {@value #MAX_WORKSPACE_LENGTH} characters. */
  static final String LONGEST_WORKSPACE = "cotenant-probe-b-0a1b2c3d-12345678901234";

  /** The ends of names whose free text is the workspace value. */
  private static final List<String> WORKSPACE_NAMES =
      List.of("workspace", "session", "sessionid", "session_id", "scope", "tenant", "namespace", "project");

  private static final String DATA_URI = "data:text/plain," + ArgumentTemplate.MARKER;

  private static final Map<String, String> FORMATS = Map.ofEntries(
      Map.entry("uri", DATA_URI),
      Map.entry("url", DATA_URI),
      Map.entry("iri", DATA_URI),
      Map.entry("uri-reference", DATA_URI),
      Map.entry("iri-reference", DATA_URI),
      Map.entry("email", ArgumentTemplate.MARKER + "@example.invalid"),
      Map.entry("idn-email", ArgumentTemplate.MARKER + "@example.invalid"),
      Map.entry("hostname", ArgumentTemplate.MARKER + ".invalid"),
      Map.entry("idn-hostname", ArgumentTemplate.MARKER + ".invalid"),
      Map.entry("date-time", "2026-01-01T00:00:00Z"),
      Map.entry("date", "2026-01-01"),
      Map.entry("time", "00:00:00Z"),
      Map.entry("uuid", "00000000-0000-4000-8000-000000000000"),
      Map.entry("ipv4", "127.0.0.1"),
      Map.entry("ipv6", "::1"));

  /** The most characters a pattern may read while matching one value. */
  private static final int MAX_PATTERN_READS = 1_000_000;

  /** The longest {@code default} or example string considered. */
  private static final int MAX_FALLBACK_LENGTH = 1_000;

  /** Bounds beyond this many digits are refused (a bound like {@code 1e999999} is not a real one). */
  private static final int MAX_DIGITS = 400;

  private SchemaArguments() {}

  /** What synthesis found. */
  sealed interface Synthesis permits Synthesized, Unsupported {}

  /**
   * Arguments for the tool.
   *
   * @param template the arguments, with placeholders
   */
  record Synthesized(ArgumentTemplate template) implements Synthesis {
    Synthesized {
      Objects.requireNonNull(template, "template");
    }
  }

  /**
   * No valid arguments could be synthesised.
   *
   * @param why what in the schema could not be satisfied, escaped for one log line
   */
  record Unsupported(String why) implements Synthesis {
    Unsupported {
      Objects.requireNonNull(why, "why");
    }
  }

  /**
   * The argument sets to try, in order, each different from the ones before: the synthesis by
   * the rules above (the marker in every free-text string); then a <b>hinted</b> one, where a
   * free-text string takes its {@code default}, the first of its {@code examples}, or the first
   * example its {@code description} names ({@code e.g. Asia/Tokyo}, {@code for example
   * 2025-03-23 12:30:00}, a quoted value), when that fits; then the hinted one with only the
   * required properties. At most {@value #MAX_CANDIDATES}; empty when the schema is unsupported.
   */
  static List<ArgumentTemplate> candidates(Map<String, Object> inputSchema) {
    List<ArgumentTemplate> out = new ArrayList<>();
    for (Synthesis s : List.of(synthesize(inputSchema, false, false), synthesize(inputSchema, true, false),
        synthesize(inputSchema, true, true))) {
      if (s instanceof Synthesized && !out.contains(((Synthesized) s).template()) && out.size() < MAX_CANDIDATES) {
        out.add(((Synthesized) s).template());
      }
    }
    return List.copyOf(out);
  }

  /** The most argument sets {@link #candidates} gives. */
  static final int MAX_CANDIDATES = 3;

  /** Synthesises arguments from a tool's {@code inputSchema} by the rules above. */
  static Synthesis synthesize(Map<String, Object> inputSchema) {
    return synthesize(inputSchema, false, false);
  }

  private static Synthesis synthesize(Map<String, Object> inputSchema, boolean hinted, boolean requiredOnly) {
    Objects.requireNonNull(inputSchema, "inputSchema");
    Object type = inputSchema.get("type");
    if (!("object".equals(type) || (type == null && inputSchema.containsKey("properties")))) {
      return new Unsupported(type == null
          ? "the input schema is not an object schema: it has neither \"type\": \"object\" nor \"properties\""
          : "the input schema is not an object schema: its type is " + show(type));
    }
    Result r;
    try {
      r = new Walk(inputSchema, hinted, requiredOnly).object(inputSchema, 0);
    } catch (TooLarge e) {
      return new Unsupported("the input schema takes more than " + MAX_STEPS + " steps to synthesise from");
    }
    if (r instanceof Fail) {
      return new Unsupported(((Fail) r).why());
    }
    Object value = ((Value) r).value();
    try {
      @SuppressWarnings("unchecked")
      Map<String, ?> map = (Map<String, ?>) value;
      return new Synthesized(ArgumentTemplate.of(map));
    } catch (IllegalArgumentException e) {
      // A const, enum value or default the template cannot hold.
      return new Unsupported(e.getMessage());
    }
  }

  /** The outcome for one schema. */
  private sealed interface Result permits Value, Omit, Fail {}

  /** A value ({@link Json#NULL} for JSON {@code null}). */
  private record Value(Object value) implements Result {}

  /** An optional property left out. */
  private enum Omit implements Result {
    OMIT
  }

  /** No valid value. */
  private record Fail(String why) implements Result {}

  /** Thrown when a synthesis runs out of steps. */
  private static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super(null, null, false, false);
    }
  }

  /** Thrown when a pattern reads too much of a value. */
  private static final class TooCostly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooCostly() {
      super(null, null, false, false);
    }
  }

  /** One synthesis: the root schema references resolve against, and the steps taken. */
  private static final class Walk {
    private final Map<String, Object> root;
    private int steps;

    private final boolean hinted;
    private final boolean requiredOnly;

    Walk(Map<String, Object> root, boolean hinted, boolean requiredOnly) {
      this.root = root;
      this.hinted = hinted;
      this.requiredOnly = requiredOnly;
    }

    private void step() {
      if (++steps > MAX_STEPS) {
        throw new TooLarge();
      }
    }

    /** The value of an object schema's properties; {@code depth} is the object's level. */
    Result object(Map<String, Object> s, int depth) {
      Object props = s.getOrDefault("properties", Map.of());
      if (!(props instanceof Map<?, ?>)) {
        return new Fail("\"properties\" is not an object but " + show(props));
      }
      Object req = s.getOrDefault("required", List.of());
      if (!(req instanceof List<?>) || !((List<?>) req).stream().allMatch(x -> x instanceof String)) {
        return new Fail("\"required\" is not an array of names but " + show(req));
      }
      List<?> required = (List<?>) req;
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) props).entrySet()) {
        String name = String.valueOf(e.getKey());
        boolean isRequired = required.contains(name);
        if (requiredOnly && !isRequired && depth == 0) {
          continue;
        }
        Result r = value(e.getValue(), name, isRequired, depth + 1);
        if (r instanceof Value) {
          out.put(name, ((Value) r).value());
        } else if (r instanceof Fail && isRequired) {
          return requiredFailed(name, (Fail) r);
        }
      }
      for (Object o : required) {
        String name = (String) o;
        if (out.containsKey(name)) {
          continue;
        }
        Object additional = s.getOrDefault("additionalProperties", Boolean.TRUE);
        if (Boolean.FALSE.equals(additional)) {
          return new Fail("required property `" + LogSafe.escape(name, 80)
              + "` is not in \"properties\" and \"additionalProperties\" is false");
        }
        Result r = value(additional, name, true, depth + 1);
        if (r instanceof Fail) {
          return requiredFailed(name, (Fail) r);
        }
        out.put(name, ((Value) r).value());
      }
      Object minProperties = s.get("minProperties");
      if (minProperties instanceof Number && ((Number) minProperties).longValue() > out.size()) {
        return new Fail("\"minProperties\" is " + minProperties + " but only " + out.size() + " propert"
            + (out.size() == 1 ? "y is" : "ies are") + " synthesised");
      }
      return new Value(out);
    }

    private static Fail requiredFailed(String name, Fail f) {
      return new Fail("required property `" + LogSafe.escape(name, 80) + "`: " + f.why());
    }

    /** The value of a property or item named {@code name}; {@code depth} is its level. */
    Result value(@Nullable Object schema, String name, boolean required, int depth) {
      step();
      if (depth > MAX_DEPTH) {
        return new Fail("the schema nests deeper than " + MAX_DEPTH + " levels (a recursive schema?)");
      }
      if (Boolean.TRUE.equals(schema)) {
        return string(Map.of(), name, required, hinted);
      }
      if (Boolean.FALSE.equals(schema)) {
        return new Fail("the schema is false: no value is valid");
      }
      if (!(schema instanceof Map<?, ?>)) {
        return new Fail("the schema is not an object but " + show(schema));
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> s = (Map<String, Object>) schema;
      if (s.containsKey("$ref")) {
        Object ref = s.get("$ref");
        if (!(ref instanceof String)) {
          return new Fail("\"$ref\" is not a string but " + show(ref));
        }
        Object target = resolve((String) ref);
        if (target == null) {
          return new Fail("the reference " + show(ref) + " is not a local reference that resolves in this schema");
        }
        return beside(target, s, "$ref", name, required, depth);
      }
      if (s.containsKey("allOf")) {
        Object all = s.get("allOf");
        if (!(all instanceof List<?>) || ((List<?>) all).size() != 1) {
          return new Fail("\"allOf\" with " + (all instanceof List<?> ? ((List<?>) all).size() + " schemas" : show(all))
              + " is not supported (only one schema is)");
        }
        return beside(((List<?>) all).get(0), s, "allOf", name, required, depth);
      }
      if (s.containsKey("const")) {
        return required ? new Value(json(s.get("const"))) : Omit.OMIT;
      }
      if (s.containsKey("enum")) {
        Object values = s.get("enum");
        if (!(values instanceof List<?>) || ((List<?>) values).isEmpty()) {
          return new Fail("\"enum\" is not a non-empty array but " + show(values));
        }
        return required ? new Value(json(((List<?>) values).get(0))) : Omit.OMIT;
      }
      for (String key : List.of("anyOf", "oneOf")) {
        if (s.containsKey(key)) {
          Object alternatives = s.get(key);
          if (!(alternatives instanceof List<?>) || ((List<?>) alternatives).isEmpty()) {
            return new Fail("\"" + key + "\" is not a non-empty array but " + show(alternatives));
          }
          Fail first = null;
          for (Object alternative : (List<?>) alternatives) {
            Result r = beside(alternative, s, key, name, required, depth);
            if (!(r instanceof Fail)) {
              return r;
            }
            if (first == null) {
              first = (Fail) r;
            }
          }
          return new Fail("no alternative of \"" + key + "\" synthesises; the first: " + first.why());
        }
      }
      Object type = s.get("type");
      String t;
      if (type == null) {
        t = inferred(s);
      } else if (type instanceof String) {
        t = (String) type;
      } else if (type instanceof List<?> && !((List<?>) type).isEmpty()
          && ((List<?>) type).stream().allMatch(x -> x instanceof String)) {
        t = ((List<?>) type).stream().map(String.class::cast).filter(x -> !x.equals("null")).findFirst().orElse("null");
      } else {
        return new Fail("\"type\" is neither a type name nor an array of them but " + show(type));
      }
      switch (t) {
        case "string":
        case "any":
          return string(s, name, required, hinted);
        case "integer":
        case "number":
          return number(s, t.equals("integer"), required);
        case "boolean":
          return required ? new Value(Boolean.FALSE) : Omit.OMIT;
        case "null":
          return required ? new Value(Json.NULL) : Omit.OMIT;
        case "array":
          return required ? array(s, name, depth) : Omit.OMIT;
        case "object":
          return required ? object(s, depth) : Omit.OMIT;
        default:
          return new Fail("unknown type " + show(t));
      }
    }

    /**
     * The value of {@code schema} read with the keywords beside {@code keyword} in {@code
     * outer}, which win.
     */
    private Result beside(@Nullable Object schema, Map<String, Object> outer, String keyword, String name,
        boolean required, int depth) {
      if (Boolean.FALSE.equals(schema)) {
        return new Fail("the schema is false: no value is valid");
      }
      if (!Boolean.TRUE.equals(schema) && !(schema instanceof Map<?, ?>)) {
        return new Fail("the schema in \"" + keyword + "\" is not an object but " + show(schema));
      }
      Map<String, Object> merged = new LinkedHashMap<>();
      if (schema instanceof Map<?, ?>) {
        ((Map<?, ?>) schema).forEach((k, v) -> merged.put(String.valueOf(k), v));
      }
      outer.forEach((k, v) -> {
        if (!k.equals(keyword) && !k.equals("$defs") && !k.equals("definitions")) {
          merged.put(k, v);
        }
      });
      return value(merged, name, required, depth + 1);
    }

    /** The schema {@code ref} points at, or null when it is not a local reference into the root. */
    private @Nullable Object resolve(String ref) {
      if (ref.equals("#")) {
        return root;
      }
      if (!ref.startsWith("#/")) {
        return null;
      }
      Object at = root;
      for (String raw : ref.substring(2).split("/", -1)) {
        String token;
        try {
          token = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          return null;
        }
        token = token.replace("~1", "/").replace("~0", "~");
        if (at instanceof Map<?, ?> && ((Map<?, ?>) at).containsKey(token)) {
          at = ((Map<?, ?>) at).get(token);
        } else if (at instanceof List<?> && token.matches("0|[1-9][0-9]{0,8}")
            && Integer.parseInt(token) < ((List<?>) at).size()) {
          at = ((List<?>) at).get(Integer.parseInt(token));
        } else {
          return null;
        }
      }
      return at;
    }

    /** The value of an array schema; {@code depth} is the array's level. */
    private Result array(Map<String, Object> s, String name, int depth) {
      Object min = s.getOrDefault("minItems", 0);
      Object max = s.get("maxItems");
      if (!(min instanceof Number) || !(max == null || max instanceof Number)) {
        return new Fail("\"minItems\" or \"maxItems\" is not a number");
      }
      long minItems = ((Number) min).longValue();
      if (max != null && ((Number) max).longValue() < minItems) {
        return new Fail("\"maxItems\" " + max + " is below \"minItems\" " + min);
      }
      if (s.containsKey("contains")) {
        return new Fail("arrays with \"contains\" are not supported");
      }
      if (minItems > MAX_ITEMS) {
        return new Fail("\"minItems\" is " + minItems + ", more than the " + MAX_ITEMS + " items synthesised");
      }
      if (minItems > 1 && Boolean.TRUE.equals(s.get("uniqueItems"))) {
        return new Fail("\"uniqueItems\" with \"minItems\" " + minItems + " is not supported (the items would be equal)");
      }
      List<?> tuple = List.of();
      Object rest = s.getOrDefault("items", Boolean.TRUE);
      if (s.get("prefixItems") instanceof List<?>) {
        tuple = (List<?>) s.get("prefixItems");
      } else if (rest instanceof List<?>) {
        tuple = (List<?>) rest;
        rest = s.getOrDefault("additionalItems", Boolean.TRUE);
      }
      // At least one item where one is allowed: an empty list writes nothing, and what is not
      // written cannot be seen to leak.
      long target = Math.max(minItems, max == null || ((Number) max).longValue() >= 1 ? 1 : 0);
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < target; i++) {
        Object item = i < tuple.size() ? tuple.get(i) : rest;
        Result r = value(item, name, true, depth + 1);
        if (r instanceof Fail) {
          if (i >= minItems) {
            break;
          }
          return new Fail("item " + i + " of " + minItems + " required (\"minItems\"): " + ((Fail) r).why());
        }
        out.add(((Value) r).value());
      }
      return new Value(out);
    }
  }

  /** The type a schema without {@code type} has by its keywords; {@code any} when none tell. */
  private static String inferred(Map<String, Object> s) {
    if (s.containsKey("properties") || s.containsKey("required")) {
      return "object";
    }
    if (s.containsKey("items") || s.containsKey("prefixItems")) {
      return "array";
    }
    if (s.containsKey("pattern") || s.containsKey("format") || s.containsKey("minLength") || s.containsKey("maxLength")) {
      return "string";
    }
    if (s.containsKey("minimum") || s.containsKey("maximum") || s.containsKey("exclusiveMinimum")
        || s.containsKey("exclusiveMaximum") || s.containsKey("multipleOf")) {
      return "number";
    }
    return "any";
  }

  /**
   * The value of a string schema for a property named {@code name}; {@code hinted}, a free-text
   * one takes the first hint that fits ({@code default}, {@code examples}, the description's).
   */
  private static Result string(Map<String, Object> s, String name, boolean required, boolean hinted) {
    Object format = s.get("format");
    boolean formatted = format instanceof String && FORMATS.containsKey(format);
    String chosen = formatted ? FORMATS.get(format) : freeText(name);
    String problem;
    try {
      if (hinted && !formatted) {
        // The schema's own values, then a path of the caller's own for a name that means one,
        // then the description's examples; a value of the server's that holds a brace is not used,
        // since the probe would read it as a placeholder.
        for (Object hint : fallbacks(s)) {
          if (usable(s, hint)) {
            return new Value(hint);
          }
        }
        Optional<String> path = pathFor(name);
        if (path.isPresent() && problem(s, path.get()) == null) {
          return new Value(path.get());
        }
        for (String hint : describedExamples(s.get("description"))) {
          if (usable(s, hint)) {
            return new Value(hint);
          }
        }
        Optional<String> known = knownValue(name, s.get("description"));
        if (known.isPresent() && usable(s, known.get())) {
          return new Value(known.get());
        }
      }
      problem = problem(s, chosen);
      if (problem == null) {
        return new Value(chosen);
      }
      if (!required) {
        return Omit.OMIT;
      }
      for (Object fallback : fallbacks(s)) {
        if (fallback instanceof String && ((String) fallback).length() <= MAX_FALLBACK_LENGTH
            && problem(s, (String) fallback) == null) {
          return new Value(fallback);
        }
      }
      Optional<String> generated = generated(s);
      if (generated.isPresent()) {
        return new Value(generated.get());
      }
    } catch (PatternSyntaxException e) {
      return new Fail("the pattern " + show(s.get("pattern")) + " is not a regular expression Java accepts");
    } catch (TooCostly e) {
      return new Fail("the pattern " + show(s.get("pattern")) + " is too costly to match");
    }
    return new Fail(problem + ", and neither \"default\" nor the first of \"examples\" does");
  }

  /** The longest pattern a string is generated from. */
  private static final int MAX_GENERATED_PATTERN = 500;

  /**
   * A string generated to match the schema's {@code pattern} (RgxGen, seeded by the pattern, so
   * every run and both callers get the same one) that also satisfies its lengths and holds no
   * brace; empty when there is no pattern, RgxGen cannot read it, or eight tries fit nothing
   * (four with each repetition at most twice, four with at most 16).
   */
  static Optional<String> generated(Map<String, Object> s) {
    Object pattern = s.get("pattern");
    if (!(pattern instanceof String) || ((String) pattern).length() > MAX_GENERATED_PATTERN) {
      return Optional.empty();
    }
    try {
      // Short repetitions first (a `+` or `*` repeated at most twice), so a maxLength is kept.
      for (int repetitions : new int[] {2, 16}) {
        com.github.curiousoddman.rgxgen.config.RgxGenProperties properties = new com.github.curiousoddman.rgxgen.config.RgxGenProperties();
        com.github.curiousoddman.rgxgen.config.RgxGenOption.INFINITE_PATTERN_REPETITION.setInProperties(properties, repetitions);
        com.github.curiousoddman.rgxgen.RgxGen gen = com.github.curiousoddman.rgxgen.RgxGen.parse(properties, (String) pattern);
        java.util.Random random = new java.util.Random(((String) pattern).hashCode());
        for (int i = 0; i < 4; i++) {
          String v = gen.generate(random);
          if (v.length() <= MAX_FALLBACK_LENGTH && !v.contains("{") && !v.contains("}") && problem(s, v) == null) {
            return Optional.of(v);
          }
        }
      }
    } catch (RuntimeException | StackOverflowError e) {
      // A pattern RgxGen does not read (ECMA-262 and Java differ at the edges): no candidate from it.
    }
    return Optional.empty();
  }

  /**
   * Well-known kinds of string, by the property's name (lower case, without {@code _} and {@code
   * -}, trailing digits dropped: {@code date2} reads as {@code date}) or the last word of it
   * ({@code startDate}, {@code start_date}), and, where the name alone is ambiguous, a word its
   * description holds; each with one ordinary valid value. The first match wins.
   */
  private static final List<Known> KNOWN = List.of(
      new Known("cron", "", "0 12 * * 1"),
      new Known("expression", "cron", "0 12 * * 1"),
      new Known("expression", "", "2+3*4"),
      new Known("expr", "", "2+3*4"),
      new Known("formula", "", "2+3*4"),
      new Known("cidr", "", "192.168.1.0/24"),
      new Known("ip", "", "192.168.1.10"),
      new Known("ipaddress", "", "192.168.1.10"),
      new Known("color", "", "#336699"),
      new Known("colour", "", "#336699"),
      new Known("datetime", "", "2026-01-01T12:00:00Z"),
      new Known("timestamp", "iso", "2026-01-01T12:00:00Z"),
      new Known("date", "", "2026-01-01"),
      new Known("timezone", "", "UTC"),
      new Known("tz", "", "UTC"),
      new Known("version", "", "1.2.3"),
      new Known("range", "semver", "^1.0.0"),
      new Known("range", "version", "^1.0.0"),
      new Known("token", "jwt", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJjb3RlbmFudCJ9."),
      new Known("jwt", "", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJjb3RlbmFudCJ9."),
      new Known("number", "digit", "79927398713"),
      new Known("value", "convert", "1"),
      new Known("unit", "", "m"),
      new Known("from", "unit", "m"),
      new Known("to", "unit", "km"),
      new Known("language", "", "en"),
      new Known("locale", "", "en-US"),
      new Known("currency", "", "USD"),
      new Known("country", "", "US"));

  /** A kind of string: the name it goes by, a word its description must hold (or none), a value. */
  private record Known(String name, String described, String value) {}

  /**
   * The ordinary value of a string whose name means a well-known kind ({@link #KNOWN}): an
   * arithmetic expression, a cron line, an IP address or CIDR block, a colour, a date, a time
   * zone, a version or range, a JWT, a Luhn number, a unit, a language or currency code.
   */
  static Optional<String> knownValue(String name, @Nullable Object description) {
    String n = plainName(name).replaceAll("[0-9]+$", "");
    // The last word of the name: startDate, start_date and start-date all end in "date"; update does not.
    String[] words = name.replaceAll("[0-9]+$", "").split("[_\\-\\s]+|(?<=[a-z0-9])(?=[A-Z])");
    String last = words.length == 0 ? n : words[words.length - 1].toLowerCase(Locale.ROOT);
    String d = description instanceof String ? ((String) description).toLowerCase(Locale.ROOT) : "";
    for (Known k : KNOWN) {
      if ((n.equals(k.name()) || last.equals(k.name())) && (k.described().isEmpty() || d.contains(k.described()))) {
        return Optional.of(k.value());
      }
    }
    return Optional.empty();
  }

  /** "e.g. X", "e.g., X", "for example X", "such as X": the text after, to the end of its clause. */
  private static final Pattern EXAMPLE_LEAD =
      Pattern.compile("(?i)(?:\\be\\.g\\.?,?|\\bfor example,?|\\bsuch as|\\bexample:)\\s*([^)\\n;]{1,200})");

  /** A quoted value: "X", 'X' or `X`. */
  private static final Pattern QUOTED = Pattern.compile("[\"'`]([^\"'`\\n]{1,200})[\"'`]");

  /**
   * The examples a description names, in order: what follows {@code e.g.}, {@code for example},
   * {@code such as} or {@code example:} (cut at a comma followed by a space, {@code " or "},
   * and a closing full stop), then quoted values.
   */
  static List<String> describedExamples(@Nullable Object description) {
    if (!(description instanceof String)) {
      return List.of();
    }
    String text = (String) description;
    if (text.length() > 4_000) {
      text = text.substring(0, 4_000);
    }
    List<String> out = new ArrayList<>();
    Matcher lead = EXAMPLE_LEAD.matcher(text);
    while (lead.find() && out.size() < 4) {
      String clause = lead.group(1).strip();
      String first = clause.split(", | or ", 2)[0].strip();
      if (first.endsWith(".") && !first.matches(".*\\d\\.")) {
        first = first.substring(0, first.length() - 1);
      }
      first = unquote(first);
      if (!first.isEmpty()) {
        out.add(first);
      }
    }
    Matcher quoted = QUOTED.matcher(text);
    while (quoted.find() && out.size() < 6) {
      String q = quoted.group(1).strip();
      if (!q.isEmpty() && !out.contains(q)) {
        out.add(q);
      }
    }
    return out;
  }

  private static String unquote(String v) {
    if (v.length() >= 2 && "\"'`".indexOf(v.charAt(0)) >= 0 && v.charAt(v.length() - 1) == v.charAt(0)) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }

  /** True when {@code hint} is a string the probe may send as it is, and it fits {@code s}. */
  private static boolean usable(Map<String, Object> s, @Nullable Object hint) {
    return hint instanceof String && !((String) hint).isBlank() && ((String) hint).length() <= MAX_FALLBACK_LENGTH
        && !((String) hint).contains("{") && problem(s, (String) hint) == null;
  }

  /** A property name in lower case without {@code _} and {@code -}: {@code task_id}, {@code taskId} and {@code task-id} read alike. */
  static String plainName(String name) {
    return name.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
  }

  /** Name ends (lower case, without {@code _} and {@code -}) that mean a directory. */
  private static final List<String> DIRECTORY_NAMES = List.of("dir", "directory", "folder", "cwd", "workdir");

  /** Name ends that mean a path or a file. */
  private static final List<String> PATH_NAMES = List.of("path", "file", "filename", "filepath");

  /**
   * For a property whose name means a directory, the caller's own scratch directory
   * ({@value ArgumentTemplate#SCRATCH}); for one whose name means a path or a file, a file in it
   * named after the marker; nothing otherwise.
   */
  static Optional<String> pathFor(String name) {
    String n = plainName(name);
    if (DIRECTORY_NAMES.stream().anyMatch(n::endsWith)) {
      return Optional.of(ArgumentTemplate.SCRATCH);
    }
    if (PATH_NAMES.stream().anyMatch(n::endsWith)) {
      return Optional.of(ArgumentTemplate.SCRATCH + "/" + ArgumentTemplate.MARKER + ".txt");
    }
    return Optional.empty();
  }

  /** The free text of a property named {@code name}. */
  private static String freeText(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return WORKSPACE_NAMES.stream().anyMatch(lower::endsWith) ? ArgumentTemplate.WORKSPACE : ArgumentTemplate.MARKER;
  }

  /** {@code default}, then the first of {@code examples}, where present. */
  private static List<Object> fallbacks(Map<String, Object> s) {
    List<Object> out = new ArrayList<>();
    if (s.containsKey("default")) {
      out.add(s.get("default"));
    }
    if (s.get("examples") instanceof List<?> && !((List<?>) s.get("examples")).isEmpty()) {
      out.add(((List<?>) s.get("examples")).get(0));
    }
    return out;
  }

  /**
   * Why {@code value}, with its placeholders substituted by the shortest and by the longest
   * caller values, breaks {@code pattern}, {@code minLength} or {@code maxLength}; null when it
   * does not.
   */
  private static @Nullable String problem(Map<String, Object> s, String value) {
    Object pattern = s.get("pattern");
    Pattern compiled = pattern instanceof String ? Pattern.compile((String) pattern) : null;
    Object min = s.get("minLength");
    Object max = s.get("maxLength");
    for (String[] sample : new String[][] {{SAMPLE_MARKER, SAMPLE_WORKSPACE}, {LONGEST_MARKER, LONGEST_WORKSPACE}}) {
      String v = value.replace(ArgumentTemplate.MARKER, sample[0]).replace(ArgumentTemplate.WORKSPACE, sample[1]);
      String shown = show(value) + (v.equals(value) ? "" : " (as " + show(v) + ")");
      long length = v.codePointCount(0, v.length());
      if (min instanceof Number && length < ((Number) min).longValue()) {
        return shown + " is shorter than \"minLength\" " + min;
      }
      if (max instanceof Number && length > ((Number) max).longValue()) {
        return shown + " is longer than \"maxLength\" " + max;
      }
      if (compiled != null && !compiled.matcher(new Bounded(v)).find()) {
        return shown + " does not match the pattern " + show(pattern);
      }
    }
    return null;
  }

  /** A value whose reads are counted, so a pattern that backtracks without end stops. */
  private static final class Bounded implements CharSequence {
    private final String text;
    private final int[] reads;

    Bounded(String text) {
      this(text, new int[1]);
    }

    private Bounded(String text, int[] reads) {
      this.text = text;
      this.reads = reads;
    }

    @Override
    public int length() {
      return text.length();
    }

    @Override
    public char charAt(int index) {
      if (++reads[0] > MAX_PATTERN_READS) {
        throw new TooCostly();
      }
      return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new Bounded(text.substring(start, end), reads);
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /** The value of an integer or number schema. */
  private static Result number(Map<String, Object> s, boolean integer, boolean required) {
    Bounds b;
    try {
      b = Bounds.of(s, integer);
    } catch (IllegalArgumentException e) {
      return new Fail(e.getMessage());
    }
    BigDecimal candidate = b.smallest();
    if (candidate != null && b.valid(candidate)) {
      return new Value(plain(candidate));
    }
    if (!required) {
      return Omit.OMIT;
    }
    for (Object fallback : fallbacks(s)) {
      BigDecimal v = fallback instanceof Number ? decimal((Number) fallback) : null;
      if (v != null && b.valid(v)) {
        return new Value(plain(v));
      }
    }
    return new Fail("no " + (integer ? "integer" : "number") + " of at least 1 satisfies " + b
        + ", and neither \"default\" nor the first of \"examples\" does");
  }

  /** The numeric constraints of a schema. */
  private static final class Bounds {
    private final boolean integer;
    private final @Nullable BigDecimal lower;
    private final boolean lowerExclusive;
    private final @Nullable BigDecimal upper;
    private final boolean upperExclusive;
    private final @Nullable BigDecimal multipleOf;

    private Bounds(boolean integer, @Nullable BigDecimal lower, boolean lowerExclusive, @Nullable BigDecimal upper,
        boolean upperExclusive, @Nullable BigDecimal multipleOf) {
      this.integer = integer;
      this.lower = lower;
      this.lowerExclusive = lowerExclusive;
      this.upper = upper;
      this.upperExclusive = upperExclusive;
      this.multipleOf = multipleOf;
    }

    /**
     * The constraints of {@code s}.
     *
     * @throws IllegalArgumentException naming a keyword that is not a usable number
     */
    static Bounds of(Map<String, Object> s, boolean integer) {
      BigDecimal minimum = bound(s, "minimum");
      BigDecimal maximum = bound(s, "maximum");
      BigDecimal lower = minimum;
      boolean lowerExclusive = false;
      Object exMin = s.get("exclusiveMinimum");
      if (Boolean.TRUE.equals(exMin)) {
        lowerExclusive = minimum != null;
      } else if (exMin != null && !(exMin instanceof Boolean)) {
        BigDecimal ex = bound(s, "exclusiveMinimum");
        if (lower == null || ex.compareTo(lower) >= 0) {
          lower = ex;
          lowerExclusive = true;
        }
      }
      BigDecimal upper = maximum;
      boolean upperExclusive = false;
      Object exMax = s.get("exclusiveMaximum");
      if (Boolean.TRUE.equals(exMax)) {
        upperExclusive = maximum != null;
      } else if (exMax != null && !(exMax instanceof Boolean)) {
        BigDecimal ex = bound(s, "exclusiveMaximum");
        if (upper == null || ex.compareTo(upper) <= 0) {
          upper = ex;
          upperExclusive = true;
        }
      }
      BigDecimal multipleOf = bound(s, "multipleOf");
      if (multipleOf != null && multipleOf.signum() <= 0) {
        throw new IllegalArgumentException("\"multipleOf\" " + multipleOf.toPlainString() + " is not above 0");
      }
      return new Bounds(integer, lower, lowerExclusive, upper, upperExclusive, multipleOf);
    }

    private static @Nullable BigDecimal bound(Map<String, Object> s, String key) {
      Object v = s.get(key);
      if (v == null) {
        return null;
      }
      BigDecimal d = v instanceof Number ? decimal((Number) v) : null;
      if (d == null) {
        throw new IllegalArgumentException("\"" + key + "\" is not a usable number but " + show(v));
      }
      return d;
    }

    /** The smallest candidate of at least 1 above the lower bound; null when there is none to try. */
    @Nullable BigDecimal smallest() {
      BigDecimal base = BigDecimal.ONE;
      if (lower != null && lower.compareTo(base) > 0) {
        base = lower;
      }
      if (multipleOf == null) {
        BigDecimal c = integer ? base.setScale(0, RoundingMode.CEILING) : base;
        if (lowerExclusive && c.compareTo(lower) <= 0) {
          c = lower.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE);
        }
        return c;
      }
      BigInteger k = base.divide(multipleOf, MathContext.DECIMAL128).setScale(0, RoundingMode.CEILING).toBigInteger();
      for (int tries = 0; tries < 1000; tries++, k = k.add(BigInteger.ONE)) {
        BigDecimal c = multipleOf.multiply(new BigDecimal(k));
        if ((lowerExclusive && c.compareTo(lower) <= 0) || (integer && !whole(c)) || c.compareTo(base) < 0) {
          continue;
        }
        return c;
      }
      return null;
    }

    /** True when {@code v} satisfies every constraint. */
    boolean valid(BigDecimal v) {
      if (integer && !whole(v)) {
        return false;
      }
      if (lower != null && (lowerExclusive ? v.compareTo(lower) <= 0 : v.compareTo(lower) < 0)) {
        return false;
      }
      if (upper != null && (upperExclusive ? v.compareTo(upper) >= 0 : v.compareTo(upper) > 0)) {
        return false;
      }
      return multipleOf == null || v.remainder(multipleOf).signum() == 0;
    }

    @Override
    public String toString() {
      List<String> parts = new ArrayList<>();
      if (lower != null) {
        parts.add((lowerExclusive ? "> " : ">= ") + lower.toPlainString());
      }
      if (upper != null) {
        parts.add((upperExclusive ? "< " : "<= ") + upper.toPlainString());
      }
      if (multipleOf != null) {
        parts.add("a multiple of " + multipleOf.toPlainString());
      }
      return parts.isEmpty() ? "the schema" : String.join(", ", parts);
    }
  }

  private static boolean whole(BigDecimal v) {
    return v.signum() == 0 || v.stripTrailingZeros().scale() <= 0;
  }

  /** A JSON number as a decimal; null when it is not finite or out of any sensible range. */
  private static @Nullable BigDecimal decimal(Number n) {
    BigDecimal d;
    if (n instanceof BigDecimal) {
      d = (BigDecimal) n;
    } else if (n instanceof BigInteger) {
      d = new BigDecimal((BigInteger) n);
    } else if (n instanceof Double || n instanceof Float) {
      double x = n.doubleValue();
      if (Double.isNaN(x) || Double.isInfinite(x)) {
        return null;
      }
      d = BigDecimal.valueOf(x);
    } else if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
      d = BigDecimal.valueOf(n.longValue());
    } else {
      return null;
    }
    if (Math.abs((long) d.precision() - d.scale()) > MAX_DIGITS || Math.abs((long) d.scale()) > MAX_DIGITS) {
      return null;
    }
    return d;
  }

  /** A whole number as a {@link Long} (or {@link BigInteger}), any other as a {@link BigDecimal}. */
  private static Number plain(BigDecimal v) {
    if (whole(v)) {
      BigInteger i = v.setScale(0, RoundingMode.UNNECESSARY).toBigInteger();
      return i.bitLength() < 64 ? (Number) Long.valueOf(i.longValue()) : i;
    }
    return v.stripTrailingZeros();
  }

  /** A JSON value from the schema with Java {@code null} as {@link Json#NULL}. */
  private static Object json(@Nullable Object v) {
    return v == null ? Json.NULL : v;
  }

  /** A schema value for a message: quoted and escaped when a string, its kind otherwise. */
  private static String show(@Nullable Object v) {
    if (v instanceof String) {
      return "`" + LogSafe.escape((String) v, 80) + "`";
    }
    if (v == null || v == Json.NULL) {
      return "null";
    }
    if (v instanceof Map<?, ?>) {
      return "an object";
    }
    if (v instanceof List<?>) {
      return "an array";
    }
    if (v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    return "a " + v.getClass().getSimpleName();
  }
}
