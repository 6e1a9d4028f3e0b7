package dev.cotenant.providers.records;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The JSON plumbing shared by the two record files: a bounded mapper, tolerant reads, plain-JSON conversion. */
final class RecordsJson {
  private static final Logger LOG = LoggerFactory.getLogger(RecordsJson.class);

  /** Nesting deeper than this makes a record file unreadable. */
  static final int MAX_NESTING = 64;

  /** A record file larger than this is unreadable (a 10,000-identity ledger is about 2 MB). */
  static final long MAX_FILE_BYTES = 256L * 1024 * 1024;

  static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private RecordsJson() {}

  /** What reading a record file found. */
  sealed interface Read {}

  /** There is no file. */
  record Missing() implements Read {}

  /** The file exists but cannot be read as JSON. */
  record Unreadable(String why) implements Read {}

  /** The file parsed. */
  record Parsed(JsonNode root) implements Read {}

  /** Reads and parses {@code file}; never throws. */
  static Read read(Path file) {
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        return new Unreadable("is larger than " + MAX_FILE_BYTES + " bytes");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return new Missing();
    } catch (IOException | SecurityException e) {
      return new Unreadable("cannot be read: " + e);
    }
    if (bytes.length == 0) {
      return new Unreadable("is empty (0 bytes)");
    }
    try {
      JsonNode root = MAPPER.readTree(bytes);
      if (root == null || root.isMissingNode()) {
        return new Unreadable("holds no JSON value");
      }
      return new Parsed(root);
    } catch (JacksonException e) {
      return new Unreadable("is not valid JSON: " + withoutSourceMarker(e.getOriginalMessage()));
    }
  }

  /** A parser message without the "(start marker at [Source: ...])" that says nothing to an operator. */
  private static String withoutSourceMarker(String message) {
    String m = String.valueOf(message);
    int cut = m.indexOf(" (start marker at [Source:");
    return cut < 0 ? m : m.substring(0, cut);
  }

  /**
   * Reads a records file of {@code schema} that keeps its entries in a {@code "servers"} object,
   * naming what it found with the caller's own results: {@code missing} when there is no file,
   * {@code unreadable} when it cannot be read as JSON, otherwise as {@link #decodeServers}.
   */
  static <R> R readServers(Path file, long schema, Supplier<R> missing, Function<String, R> unreadable,
      LongFunction<R> future, Function<JsonNode, R> servers) {
    Read r = read(file);
    if (r instanceof Missing) {
      return missing.get();
    }
    if (r instanceof Unreadable) {
      return unreadable.apply(((Unreadable) r).why());
    }
    return decodeServers(((Parsed) r).root(), schema, unreadable, future, servers);
  }

  /**
   * The {@code "servers"} object of a parsed records file of {@code schema}: {@code future} for a
   * newer schema; {@code unreadable} when the root is not an object, has no integer schema or an
   * older one, or holds a {@code "servers"} that is not an object; otherwise {@code servers} with
   * that object (an empty one when it is absent or null).
   */
  static <R> R decodeServers(JsonNode root, long schema, Function<String, R> unreadable, LongFunction<R> future,
      Function<JsonNode, R> servers) {
    if (!root.isObject()) {
      return unreadable.apply("is not a JSON object");
    }
    JsonNode found = root.get("schema");
    if (found == null || !found.isIntegralNumber() || !found.canConvertToLong()) {
      return unreadable.apply("has no integer \"schema\"");
    }
    long s = found.longValue();
    if (s > schema) {
      return future.apply(s);
    }
    if (s < schema) {
      return unreadable.apply("has schema " + s + ", which no writer uses");
    }
    JsonNode entries = root.get("servers");
    if (entries == null || entries.isNull()) {
      return servers.apply(NODES.objectNode());
    }
    if (!entries.isObject()) {
      return unreadable.apply("has a \"servers\" that is not an object");
    }
    return servers.apply(entries);
  }

  /** Logs that {@code file} was unreadable and what it reads as. */
  static void warnUnreadable(Path file, String why, String readsAs) {
    LOG.warn("{} {}; it reads as {}", LogSafe.escape(file.toString(), 500), LogSafe.escape(why, 300), readsAs);
  }

  /**
   * Moves an unreadable {@code file} to {@code <file>.corrupt} (replacing an older one) so an
   * operator can still inspect it after a writer replaces it. Call under the file's lock.
   */
  static void moveAside(Path file) {
    try {
      moveAsideOrThrow(file);
    } catch (IOException e) {
      // the atomic write replaces it anyway
    }
  }

  /**
   * Moves {@code file}, which could not be read completely, to {@link #corruptCopy} (replacing an
   * older one) before a writer replaces it, for a record whose unread content may be evidence.
   * Call under the file's lock.
   *
   * @throws IOException when it cannot be moved: the caller must then not overwrite it
   */
  static void moveAsideOrThrow(Path file) throws IOException {
    Path aside = corruptCopy(file);
    try {
      Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
    } catch (NoSuchFileException e) {
      return;
    } catch (IOException | SecurityException e) {
      throw new IOException("cannot move " + file + ", which could not be read completely, aside to " + aside
          + "; refusing to overwrite it: " + e, e);
    }
    LOG.warn("moved {}, which could not be read completely, to {}", LogSafe.escape(file.toString(), 500),
        LogSafe.escape(aside.getFileName().toString()));
  }

  /** Where {@code file} goes when it could not be read and a writer replaces it: {@code <file>.corrupt}. */
  static Path corruptCopy(Path file) {
    return file.resolveSibling(file.getFileName() + ".corrupt");
  }

  /**
   * When a copy of {@code file} that could not be read completely was moved aside and is still
   * there, why reading {@code file} alone is not complete: what the copy holds is not read.
   *
   * @param holds what such a copy may hold that matters, e.g. "observations"
   */
  static java.util.Optional<String> movedAsideCopy(Path file, String holds) {
    Path aside = corruptCopy(file);
    boolean there;
    try {
      there = Files.exists(aside);
    } catch (SecurityException e) {
      there = true;
    }
    return there
        ? java.util.Optional.of("a copy that could not be read completely was moved to " + aside + "; the " + holds
            + " it holds are not read (inspect it, copy what it holds back into " + file.getFileName()
            + " if anything, then delete it)")
        : java.util.Optional.empty();
  }

  /** Joins the problems found reading one record; empty when there is none. */
  static java.util.Optional<String> problems(java.util.Optional<String> first, java.util.Optional<String> second) {
    if (first.isPresent() && second.isPresent()) {
      return java.util.Optional.of(first.get() + "; " + second.get());
    }
    return first.isPresent() ? first : second;
  }

  /**
   * Logs the problems of one record file once each: a problem is logged when it is first seen,
   * not again while every read finds the same one, and again if it comes back after a complete
   * read. Thread-safe.
   */
  static final class WarnOnce {
    private String last;

    /** Logs {@code problem} (with what the record reads as) unless it was the last one logged; forgets it when empty. */
    synchronized void warn(java.util.Optional<String> problem, String readsAs) {
      if (problem.isEmpty()) {
        last = null;
        return;
      }
      if (problem.get().equals(last)) {
        return;
      }
      last = problem.get();
      LOG.warn("{}; it reads as {}", LogSafe.escape(problem.get(), 1000), readsAs);
    }
  }

  /** Pretty-printed UTF-8 bytes of {@code node}. */
  static byte[] bytes(JsonNode node) {
    return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(node);
  }

  /** A JSON tree as plain Java values (maps, lists, strings, numbers, booleans, {@link Json#NULL}). */
  static Object plain(JsonNode n) {
    if (n.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        m.put(e.getKey(), plain(e.getValue()));
      }
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      for (JsonNode c : n) {
        l.add(plain(c));
      }
      return l;
    }
    if (n.isString()) {
      return n.stringValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    if (n.isIntegralNumber()) {
      return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
    }
    if (n.isNumber()) {
      return n.isBigDecimal() ? n.decimalValue() : (Object) n.doubleValue();
    }
    return Json.NULL;
  }

  /** Plain Java JSON values as a tree; anything unrecognised is written as its string form. */
  static JsonNode node(Object v) {
    if (v instanceof Map<?, ?>) {
      ObjectNode o = NODES.objectNode();
      ((Map<?, ?>) v).forEach((k, val) -> o.set(String.valueOf(k), node(val)));
      return o;
    }
    if (v instanceof List<?>) {
      ArrayNode a = NODES.arrayNode();
      ((List<?>) v).forEach(x -> a.add(node(x)));
      return a;
    }
    if (v instanceof String) {
      return NODES.stringNode((String) v);
    }
    if (v instanceof Boolean) {
      return NODES.booleanNode((Boolean) v);
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return NODES.numberNode(((Number) v).longValue());
    }
    if (v instanceof BigInteger) {
      return NODES.numberNode((BigInteger) v);
    }
    if (v instanceof BigDecimal) {
      return NODES.numberNode((BigDecimal) v);
    }
    if (v instanceof Number) {
      return NODES.numberNode(((Number) v).doubleValue());
    }
    if (v == null || v == Json.NULL) {
      return NODES.nullNode();
    }
    return NODES.stringNode(String.valueOf(v));
  }
}
