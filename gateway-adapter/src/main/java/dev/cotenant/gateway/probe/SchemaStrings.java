package dev.cotenant.gateway.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;
import dev.cotenant.gateway.probe.SchemaArguments.Fail;
import dev.cotenant.gateway.probe.SchemaArguments.Omit;
import dev.cotenant.gateway.probe.SchemaArguments.Result;
import dev.cotenant.gateway.probe.SchemaArguments.Value;

/**
 * The string keywords of {@link SchemaArguments}' synthesis: the value of a string schema by its
 * {@code format}, or free text by the property's name (the workspace value, a path of the caller's
 * own, a known kind of string), checked against {@code pattern}, {@code minLength} and
 * {@code maxLength} with the shortest and the longest caller values; the schema's {@code default}
 * and {@code examples}, the description's examples, and a string generated from the pattern
 * when free text does not fit. Pure, static and thread-safe.
 */
final class SchemaStrings {
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

  private SchemaStrings() {}

  /** Thrown when a pattern reads too much of a value. */
  private static final class TooCostly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TooCostly() {
      super(null, null, false, false);
    }
  }

  /**
   * The value of a string schema for a property named {@code name}; {@code hinted}, a free-text
   * one takes the first hint that fits ({@code default}, {@code examples}, the description's).
   */
  static Result string(Map<String, Object> s, String name, boolean required, boolean hinted) {
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
      return new Fail("the pattern " + SchemaArguments.show(s.get("pattern")) + " is not a regular expression Java accepts");
    } catch (TooCostly e) {
      return new Fail("the pattern " + SchemaArguments.show(s.get("pattern")) + " is too costly to match");
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
  static List<Object> fallbacks(Map<String, Object> s) {
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
    for (String[] sample : new String[][] {
        {SchemaArguments.SAMPLE_MARKER, SchemaArguments.SAMPLE_WORKSPACE},
        {SchemaArguments.LONGEST_MARKER, SchemaArguments.LONGEST_WORKSPACE}}) {
      String v = value.replace(ArgumentTemplate.MARKER, sample[0]).replace(ArgumentTemplate.WORKSPACE, sample[1]);
      String shown = SchemaArguments.show(value) + (v.equals(value) ? "" : " (as " + SchemaArguments.show(v) + ")");
      long length = v.codePointCount(0, v.length());
      if (min instanceof Number && length < ((Number) min).longValue()) {
        return shown + " is shorter than \"minLength\" " + min;
      }
      if (max instanceof Number && length > ((Number) max).longValue()) {
        return shown + " is longer than \"maxLength\" " + max;
      }
      if (compiled != null && !compiled.matcher(new Bounded(v)).find()) {
        return shown + " does not match the pattern " + SchemaArguments.show(pattern);
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
}
