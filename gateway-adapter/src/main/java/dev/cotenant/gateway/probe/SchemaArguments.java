package dev.cotenant.gateway.probe;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
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
 *       match its {@code pattern} ({@link SchemaStrings#generated}); otherwise the schema is unsupported. A pattern Java
 *       cannot compile, or one too costly to match, is unsupported.
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
 * <p>The string keywords are read by {@link SchemaStrings}, the numeric ones by
 * {@link SchemaNumbers}.
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
  sealed interface Result permits Value, Omit, Fail {}

  /** A value ({@link Json#NULL} for JSON {@code null}). */
  record Value(Object value) implements Result {}

  /** An optional property left out. */
  enum Omit implements Result {
    OMIT
  }

  /** No valid value. */
  record Fail(String why) implements Result {}

  /** Thrown when a synthesis runs out of steps. */
  private static final class TooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
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
        return SchemaStrings.string(Map.of(), name, required, hinted);
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
          return SchemaStrings.string(s, name, required, hinted);
        case "integer":
        case "number":
          return SchemaNumbers.number(s, t.equals("integer"), required);
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

  /** A JSON value from the schema with Java {@code null} as {@link Json#NULL}. */
  static Object json(@Nullable Object v) {
    return v == null ? Json.NULL : v;
  }

  /** A schema value for a message: quoted and escaped when a string, its kind otherwise. */
  static String show(@Nullable Object v) {
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
