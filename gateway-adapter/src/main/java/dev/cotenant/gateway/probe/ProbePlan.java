package dev.cotenant.gateway.probe;

import dev.cotenant.api.LogSafe;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * An operator's probe plan: per tool, the arguments a whole-surface statelessness probe calls it
 * with, or that it is skipped, or that a destructive tool is included. Read from a small JSON
 * file ({@code --plan FILE}):
 *
 * <pre>{@code
 * {"tools": {
 *   "gzip-file-as-resource": {"arguments": {"name": "{marker}.gz", "data": "data:text/plain,{marker}"}},
 *   "delete-everything": {"skip": "wipes the operator's data; covered by the vendor's own isolation tests"},
 *   "wipe_scratch": {"include": true}
 * }}
 * }</pre>
 *
 * <p>The file is a JSON object whose only key is {@code tools}, an object mapping tool names (as
 * {@code tools/list} gives them, case-sensitive) to entries. Each entry has exactly one of:
 *
 * <ul>
 *   <li>{@code arguments}: a JSON object, the tool's arguments, whose string values may hold
 *       {@value ArgumentTemplate#MARKER} and {@value ArgumentTemplate#WORKSPACE} (see {@link
 *       ArgumentTemplate}); used instead of arguments synthesised from the tool's input schema,
 *       and includes the tool even when it declares {@code destructiveHint};
 *   <li>{@code skip}: a non-empty reason; the tool is not called, and the reason is reported;
 *   <li>{@code include}: {@code true}; a tool that declares {@code destructiveHint} is called,
 *       with arguments synthesised from its input schema. {@code false} is refused: omit the
 *       entry instead.
 * </ul>
 *
 * <p>A top-level {@code "network": true} lets the server reach the network inside the probe's
 * sandbox; then only tools annotated {@code readOnlyHint: true} are called, and every other tool
 * must be skipped by the plan to be covered. {@code "tools"} may then be omitted. {@code false}
 * is the default and may be written.
 *
 * <p>Tools the plan does not name are probed as usual. The file is read strictly: UTF-8 without
 * a byte-order mark, at most {@value #MAX_BYTES} bytes, a single JSON value with no duplicate
 * keys, arguments nested at most {@value ArgumentTemplate#MAX_DEPTH} levels deep; an unknown key
 * (at the top level or in an entry), a value of the wrong type, an empty reason, or more or fewer
 * than one of the three keys in an entry is refused. Every refusal is an {@link
 * IllegalArgumentException} whose one-line message names the file and, where it applies, the tool
 * and the key. Immutable and thread-safe.
 */
public final class ProbePlan {
  /** The largest plan read, in bytes (1 MiB). */
  public static final int MAX_BYTES = 1 << 20;

  /**
   * The deepest plan the parser reads; deeper arguments are refused with the depth
   * {@link ArgumentTemplate} allows named.
   */
  private static final int MAX_NESTING = 2 * ArgumentTemplate.MAX_DEPTH;

  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).maxDocumentLength(MAX_BYTES).build())
                  .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private static final String ENTRY_KEYS = "\"arguments\", \"skip\" or \"include\"";

  private static final ProbePlan EMPTY = new ProbePlan("the empty plan", Map.of(), false);

  private final String what;
  private final Map<String, Entry> entries;
  private final boolean network;

  private ProbePlan(String what, Map<String, Entry> entries, boolean network) {
    this.what = what;
    this.entries = entries;
    this.network = network;
  }

  /** What the plan says about one tool. */
  public sealed interface Entry permits Arguments, Skip, Include {}

  /**
   * Call the tool with these arguments.
   *
   * @param template the arguments, with placeholders
   */
  public record Arguments(ArgumentTemplate template) implements Entry {
    public Arguments {
      Objects.requireNonNull(template, "template");
    }
  }

  /**
   * Do not call the tool.
   *
   * @param reason why, as the operator wrote it (not blank)
   */
  public record Skip(String reason) implements Entry {
    public Skip {
      Objects.requireNonNull(reason, "reason");
      if (reason.isBlank()) {
        throw new IllegalArgumentException("a skipped tool needs a reason");
      }
    }
  }

  /** Call the tool, although it declares {@code destructiveHint}, with synthesised arguments. */
  public record Include() implements Entry {}

  /** The plan that names no tool. */
  public static ProbePlan empty() {
    return EMPTY;
  }

  /**
   * Reads a plan file.
   *
   * @throws IllegalArgumentException with a one-line message naming the file when it is missing,
   *     unreadable, not a regular file, larger than {@value #MAX_BYTES} bytes, not UTF-8, starts
   *     with a byte-order mark, is not valid JSON (the line and column are named), or breaks a
   *     rule of the format
   */
  public static ProbePlan read(Path file) {
    Objects.requireNonNull(file, "file");
    String what = LogSafe.escape(file.toString(), 200);
    byte[] bytes;
    try {
      BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
      if (attrs.isDirectory()) {
        throw new IllegalArgumentException(what + ": is a directory; expected a probe plan (a JSON file)");
      }
      if (!attrs.isRegularFile()) {
        throw new IllegalArgumentException(
            what + ": is not a regular file (a FIFO, a socket or a device); expected a probe plan (a JSON file)");
      }
      if (attrs.size() > MAX_BYTES) {
        throw tooLarge(what, attrs.size(), "bytes");
      }
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes(MAX_BYTES + 1);
      }
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(what + ": no such file", e);
    } catch (AccessDeniedException e) {
      throw new IllegalArgumentException(what + ": cannot be read: permission denied", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(what + ": cannot be read: "
          + LogSafe.escape(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), 200), e);
    }
    if (bytes.length > MAX_BYTES) {
      throw tooLarge(what, bytes.length, "bytes");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw new IllegalArgumentException(what + ": is not UTF-8 (at byte " + in.position() + "); save the plan as UTF-8");
    }
    return parse(what, out.flip().toString());
  }

  private static IllegalArgumentException tooLarge(String what, long size, String unit) {
    return new IllegalArgumentException(what + ": is too large (" + size + " " + unit + "; a probe plan is at most "
        + MAX_BYTES + " " + unit + ")");
  }

  /**
   * Parses a plan.
   *
   * @param what names the plan in messages (the file, or {@code --plan})
   * @param json the plan's JSON text
   * @throws IllegalArgumentException with a one-line message naming {@code what} and, where it
   *     applies, the tool and the key, when the text is not valid JSON or breaks a rule of the
   *     format
   */
  public static ProbePlan parse(String what, String json) {
    Objects.requireNonNull(what, "what");
    Objects.requireNonNull(json, "json");
    if (json.length() > MAX_BYTES) {
      throw tooLarge(what, json.length(), "characters");
    }
    if (json.startsWith("\uFEFF")) {
      throw new IllegalArgumentException(what + ": starts with a byte-order mark; save the plan as UTF-8 without one");
    }
    if (json.isBlank()) {
      throw new IllegalArgumentException(what + ": is empty; expected a JSON object with \"tools\"");
    }
    Object root;
    try {
      root = MAPPER.readValue(json, Object.class);
    } catch (StreamConstraintsException e) {
      throw new IllegalArgumentException(what + ": " + (e.getOriginalMessage().contains("nesting depth")
          ? "nests deeper than " + MAX_NESTING + " levels"
          : LogSafe.escape(e.getOriginalMessage(), 200)) + where(e.getLocation()), e);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          what + ": is not valid JSON" + where(e.getLocation()) + ": " + LogSafe.escape(e.getOriginalMessage(), 200), e);
    }
    if (!(root instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(what + ": must be a JSON object with \"tools\", found " + kind(root));
    }
    Map<?, ?> top = (Map<?, ?>) root;
    for (Object key : top.keySet()) {
      if (!"tools".equals(key) && !"network".equals(key)) {
        throw new IllegalArgumentException(
            what + ": unknown key " + quote(key) + " at the top level (the keys are \"tools\" and \"network\")");
      }
    }
    boolean network = false;
    if (top.containsKey("network")) {
      Object n = top.get("network");
      if (!(n instanceof Boolean)) {
        throw new IllegalArgumentException(what + ": key \"network\" must be true or false, found " + kind(n));
      }
      network = (Boolean) n;
    }
    if (!top.containsKey("tools")) {
      if (network) {
        return new ProbePlan(what, Map.of(), true);
      }
      throw new IllegalArgumentException(what + ": has no \"tools\" object");
    }
    Object tools = top.get("tools");
    if (!(tools instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(
          what + ": \"tools\" must be an object mapping tool names to entries, found " + kind(tools));
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : ((Map<?, ?>) tools).entrySet()) {
      String tool = String.valueOf(e.getKey());
      if (tool.isEmpty()) {
        throw new IllegalArgumentException(what + ": a tool in \"tools\" has an empty name");
      }
      entries.put(tool, entry(what + ": tool " + quote(tool), e.getValue()));
    }
    return new ProbePlan(what, Collections.unmodifiableMap(entries), network);
  }

  private static Entry entry(String where, @Nullable Object value) {
    if (!(value instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(where + ": must be an object with one of " + ENTRY_KEYS + ", found " + kind(value));
    }
    Map<?, ?> entry = (Map<?, ?>) value;
    List<String> given = new ArrayList<>();
    for (Object key : entry.keySet()) {
      if (!"arguments".equals(key) && !"skip".equals(key) && !"include".equals(key)) {
        throw new IllegalArgumentException(where + ": unknown key " + quote(key) + " (expected one of " + ENTRY_KEYS + ")");
      }
      given.add((String) key);
    }
    if (given.isEmpty()) {
      throw new IllegalArgumentException(where + ": is empty; give one of " + ENTRY_KEYS);
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(
          where + ": has both \"" + given.get(0) + "\" and \"" + given.get(1) + "\"; give exactly one of " + ENTRY_KEYS);
    }
    String key = given.get(0);
    Object v = entry.get(key);
    switch (key) {
      case "arguments":
        if (!(v instanceof Map<?, ?>)) {
          throw new IllegalArgumentException(
              where + ": key \"arguments\" must be a JSON object of tool arguments, found " + kind(v));
        }
        @SuppressWarnings("unchecked")
        Map<String, ?> arguments = (Map<String, ?>) v;
        try {
          return new Arguments(ArgumentTemplate.of(arguments));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + ": key \"arguments\": " + e.getMessage(), e);
        }
      case "skip":
        if (!(v instanceof String)) {
          throw new IllegalArgumentException(where + ": key \"skip\" must be a string, the reason, found " + kind(v));
        }
        if (((String) v).isBlank()) {
          throw new IllegalArgumentException(where + ": key \"skip\" is empty; give the reason the tool is not called");
        }
        return new Skip((String) v);
      default:
        if (Boolean.FALSE.equals(v)) {
          throw new IllegalArgumentException(
              where + ": key \"include\" is false; omit the entry instead (include only says true)");
        }
        if (!Boolean.TRUE.equals(v)) {
          throw new IllegalArgumentException(where + ": key \"include\" must be true, found " + kind(v));
        }
        return new Include();
    }
  }

  /** What the plan says about {@code tool}; empty when it does not name it. */
  public Optional<Entry> entry(String tool) {
    return Optional.ofNullable(entries.get(Objects.requireNonNull(tool, "tool")));
  }

  /**
   * True when the plan lets the server reach the network inside the sandbox: then only
   * {@code readOnlyHint: true} tools are called.
   */
  public boolean network() {
    return network;
  }

  /** The tools the plan names, in the plan's order. */
  public Set<String> tools() {
    return Collections.unmodifiableSet(entries.keySet());
  }

  /**
   * One line: the plan's name and, per tool, its entry, e.g. {@code plan.json: echo: arguments
   * {"message":"{marker}"}; wipe: skip "wipes data"; scratch: include}. Tool names and reasons are
   * escaped.
   */
  @Override
  public String toString() {
    if (entries.isEmpty()) {
      return what + ": no tools" + (network ? "; network allowed" : "");
    }
    List<String> parts = new ArrayList<>();
    if (network) {
      parts.add("network allowed");
    }
    entries.forEach((tool, e) -> {
      String name = LogSafe.escape(tool, 80);
      if (e instanceof Arguments) {
        parts.add(name + ": arguments " + LogSafe.escape(((Arguments) e).template().toString(), 200));
      } else if (e instanceof Skip) {
        parts.add(name + ": skip \"" + LogSafe.escape(((Skip) e).reason(), 200) + "\"");
      } else {
        parts.add(name + ": include");
      }
    });
    return what + ": " + String.join("; ", parts);
  }

  private static String where(@Nullable TokenStreamLocation loc) {
    if (loc == null || loc.getLineNr() < 0) {
      return "";
    }
    return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  /** A key for a message: quoted and escaped. */
  private static String quote(@Nullable Object key) {
    return "\"" + LogSafe.escape(String.valueOf(key), 80) + "\"";
  }

  /** The kind of a JSON value, for a message. */
  private static String kind(@Nullable Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Map<?, ?>) {
      return "an object";
    }
    if (v instanceof List<?>) {
      return "an array";
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    return "a number";
  }
}
