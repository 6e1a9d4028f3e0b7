package dev.cotenant.providers.records;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ShareScope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@code concurrency-records.json}, schema {@value #SCHEMA} (docs/statelessness.md):
 *
 * <pre>{@code
 * {"schema": 1, "servers": {"<name>": {"model": "shared", "scope": "tenant", "maxConcurrent": 4,
 *   "probe": {"identity": "<ledger key>", "tool": "*", "rounds": 3, "passedAt": 1.0,
 *     "surface": {"tools": ["echo", "remember"], "skipped": {"wipe": "<the plan's reason>"}}}}}}
 * }</pre>
 *
 * <p>A single-tool pass has the tool's name and no {@code surface}; a whole-surface pass has
 * the tool {@code "*"} and a {@code surface}. A reader that predates {@code surface} ignores it
 * and reads a single-tool pass of a tool named {@code *}, which backs nothing more than it did.
 *
 * <p>Every entry is built through {@link ConcurrencyRecord}'s own constructor, so the schema
 * invariants hold for what is read exactly as for what is written: {@code shared} without a
 * passed probe, or without a positive {@code maxConcurrent}, is refused with the record's own
 * message. {@code model} defaults to {@code sidecar} and {@code scope} to {@code tenant} when
 * absent; any other malformed field refuses the entry with a message naming the server and field.
 */
public final class ConcurrencyRecordsCodec {
  /** The schema this build reads and writes. */
  public static final int SCHEMA = 1;

  private static final String MODELS = java.util.Arrays.stream(ConcurrencyModel.values())
      .map(ConcurrencyModel::wireName).collect(java.util.stream.Collectors.joining(", "));
  private static final String SCOPES = java.util.Arrays.stream(ShareScope.values())
      .map(ShareScope::wireName).collect(java.util.stream.Collectors.joining(", "));

  private ConcurrencyRecordsCodec() {}

  /**
   * Deserializes one entry from JSON text.
   *
   * @param serverName the name the entry is stored under
   * @param json the entry's JSON object
   * @throws IllegalArgumentException naming the server and what was wrong, including the
   *     record's own refusals ({@code shared} without a probe or without {@code maxConcurrent})
   */
  public static ConcurrencyRecord parseRecord(String serverName, String json) {
    JsonNode node;
    try {
      node = RecordsJson.MAPPER.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "concurrency record of " + LogSafe.escape(serverName) + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
    return decodeRecord(serverName, node);
  }

  /** Serializes one record as the JSON object stored under its name. */
  public static String format(ConcurrencyRecord record) {
    return RecordsJson.MAPPER.writeValueAsString(encodeRecord(record));
  }

  /**
   * The value named by the string field {@code field} of {@code n}, or {@code absent} when the
   * field is missing or {@code null}.
   *
   * @throws IllegalArgumentException naming the server ({@code who}, already escaped) and the
   *     field when it is not a string or names no value; the message lists {@code expected}
   */
  private static <T> T wireName(
      JsonNode n, String field, Function<String, Optional<T>> fromWire, T absent, String expected, String who) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.isString()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": \"" + field + "\" must be a string");
    }
    return fromWire.apply(v.stringValue())
        .orElseThrow(() -> new IllegalArgumentException(
            "concurrency record of " + who + ": unknown " + field + " '" + LogSafe.escape(v.stringValue(), 80)
                + "'; expected one of " + expected));
  }

  /**
   * Builds one record from its JSON object.
   *
   * @throws IllegalArgumentException as {@link #parseRecord}
   */
  static ConcurrencyRecord decodeRecord(String serverName, JsonNode n) {
    String who = LogSafe.escape(serverName);
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("concurrency record of " + who + " is not a JSON object");
    }
    ConcurrencyModel model = wireName(n, "model", ConcurrencyModel::fromWire, ConcurrencyModel.SIDECAR, MODELS, who);
    ShareScope scope = wireName(n, "scope", ShareScope::fromWire, ShareScope.TENANT, SCOPES, who);
    OptionalInt max = OptionalInt.empty();
    JsonNode mc = n.get("maxConcurrent");
    if (mc != null && !mc.isNull()) {
      if (!mc.isIntegralNumber() || !mc.canConvertToInt()) {
        throw new IllegalArgumentException(
            "concurrency record of " + who + ": maxConcurrent must be a positive integer, got "
                + LogSafe.escape(mc.toString(), 40));
      }
      max = OptionalInt.of(mc.intValue());
    }
    Optional<ProbePass> probe = Optional.empty();
    JsonNode p = n.get("probe");
    if (p != null && !p.isNull()) {
      probe = Optional.of(decodeProbe(who, p));
    }
    try {
      return new ConcurrencyRecord(serverName, model, scope, max, probe);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static ProbePass decodeProbe(String who, JsonNode p) {
    if (!p.isObject()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": \"probe\" must be an object");
    }
    String identity = text(who, p, "identity");
    String tool = text(who, p, "tool");
    JsonNode rounds = p.get("rounds");
    if (rounds == null || !rounds.isIntegralNumber() || !rounds.canConvertToInt()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": probe.rounds must be an integer");
    }
    JsonNode at = p.get("passedAt");
    double passedAt = 0.0;
    if (at != null && at.isNumber() && Double.isFinite(at.doubleValue())) {
      passedAt = at.doubleValue();
    }
    Optional<ProbePass.Surface> surface = Optional.empty();
    JsonNode sn = p.get("surface");
    if (sn != null && !sn.isNull()) {
      surface = Optional.of(decodeSurface(who, sn));
    }
    return new ProbePass(identity, tool, rounds.intValue(), passedAt, surface);
  }

  private static ProbePass.Surface decodeSurface(String who, JsonNode sn) {
    if (!sn.isObject()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": probe.surface must be an object");
    }
    List<String> tools = new ArrayList<>();
    JsonNode t = sn.get("tools");
    if (t == null || !t.isArray()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": probe.surface.tools must be an array of tool names");
    }
    for (JsonNode e : t) {
      if (!e.isString()) {
        throw new IllegalArgumentException("concurrency record of " + who + ": probe.surface.tools must hold only strings");
      }
      tools.add(e.stringValue());
    }
    Map<String, String> skipped = new TreeMap<>();
    JsonNode k = sn.get("skipped");
    if (k != null && !k.isNull()) {
      if (!k.isObject()) {
        throw new IllegalArgumentException("concurrency record of " + who + ": probe.surface.skipped must be an object");
      }
      for (Map.Entry<String, JsonNode> e : k.properties()) {
        if (!e.getValue().isString()) {
          throw new IllegalArgumentException("concurrency record of " + who + ": the reason probe.surface.skipped."
              + LogSafe.escape(e.getKey(), 80) + " must be a string");
        }
        skipped.put(e.getKey(), e.getValue().stringValue());
      }
    }
    List<String> clients = optionalNames(who, sn, "clientCapabilities", "capability names");
    List<String> versions = optionalNames(who, sn, "protocolVersions", "protocol versions");
    return ProbePass.Surface.of(tools, skipped, clients, versions);
  }

  /**
   * The non-blank strings of the optional array {@code surface.<field>} (absent or null: none),
   * each a {@code what}.
   *
   * @throws IllegalArgumentException naming the field when it is not such an array
   */
  private static List<String> optionalNames(String who, JsonNode surface, String field, String what) {
    List<String> out = new ArrayList<>();
    JsonNode a = surface.get(field);
    if (a == null || a.isNull()) {
      return out;
    }
    if (!a.isArray()) {
      throw new IllegalArgumentException(
          "concurrency record of " + who + ": probe.surface." + field + " must be an array of " + what);
    }
    for (JsonNode e : a) {
      if (!e.isString() || e.stringValue().isBlank()) {
        throw new IllegalArgumentException(
            "concurrency record of " + who + ": probe.surface." + field + " must hold only " + what);
      }
      out.add(e.stringValue());
    }
    return out;
  }

  private static String text(String who, JsonNode p, String field) {
    JsonNode v = p.get(field);
    if (v == null || !v.isString()) {
      throw new IllegalArgumentException("concurrency record of " + who + ": probe." + field + " must be a string");
    }
    return v.stringValue();
  }

  static ObjectNode encodeRecord(ConcurrencyRecord r) {
    ObjectNode o = RecordsJson.NODES.objectNode();
    o.put("model", r.model().wireName());
    o.put("scope", r.scope().wireName());
    r.maxConcurrent().ifPresent(v -> o.put("maxConcurrent", v));
    r.probe().ifPresent(p -> {
      ObjectNode pn = o.putObject("probe");
      pn.put("identity", p.identity());
      pn.put("tool", p.tool());
      pn.put("rounds", p.rounds());
      pn.put("passedAt", p.passedAt());
      p.surface().ifPresent(surface -> {
        ObjectNode sn = pn.putObject("surface");
        ArrayNode tools = sn.putArray("tools");
        surface.exercised().forEach(tools::add);
        ObjectNode skipped = sn.putObject("skipped");
        surface.skipped().forEach(skipped::put);
        if (!surface.clientCapabilities().isEmpty()) {
          ArrayNode clients = sn.putArray("clientCapabilities");
          surface.clientCapabilities().forEach(clients::add);
        }
        if (!surface.protocolVersions().isEmpty()) {
          ArrayNode versions = sn.putArray("protocolVersions");
          surface.protocolVersions().forEach(versions::add);
        }
      });
    });
    return o;
  }

  /** What reading the file found. */
  sealed interface Result {}

  /** No file. */
  record Missing() implements Result {}

  /** Not a schema-1 records file. */
  record Unreadable(String why) implements Result {}

  /** A newer writer's file: read as empty, never overwritten. */
  record Future(long schema) implements Result {}

  /**
   * The file's entries.
   *
   * @param raw every entry as stored, by name (kept verbatim when another entry is rewritten)
   * @param records the entries that decode, by name
   * @param rejected the entries that do not, by name, with why
   */
  record Loaded(Map<String, JsonNode> raw, Map<String, ConcurrencyRecord> records, Map<String, String> rejected)
      implements Result {}

  static Result read(java.nio.file.Path file) {
    return RecordsJson.readServers(file, SCHEMA, Missing::new, Unreadable::new, Future::new,
        ConcurrencyRecordsCodec::loaded);
  }

  static Result decode(JsonNode root) {
    return RecordsJson.decodeServers(root, SCHEMA, Unreadable::new, Future::new, ConcurrencyRecordsCodec::loaded);
  }

  private static Loaded loaded(JsonNode servers) {
    Map<String, JsonNode> raw = new TreeMap<>();
    Map<String, ConcurrencyRecord> records = new TreeMap<>();
    Map<String, String> rejected = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : servers.properties()) {
      if (e.getKey().isEmpty()) {
        continue;
      }
      raw.put(e.getKey(), e.getValue());
      try {
        records.put(e.getKey(), decodeRecord(e.getKey(), e.getValue()));
      } catch (IllegalArgumentException ex) {
        rejected.put(e.getKey(), ex.getMessage());
      }
    }
    return new Loaded(raw, records, rejected);
  }

  static byte[] encode(Map<String, JsonNode> raw) {
    ObjectNode root = RecordsJson.NODES.objectNode();
    root.put("schema", SCHEMA);
    ObjectNode servers = root.putObject("servers");
    new TreeMap<>(raw).forEach(servers::set);
    return RecordsJson.bytes(root);
  }

  static Map<String, JsonNode> mutable(Map<String, JsonNode> raw) {
    return new LinkedHashMap<>(raw);
  }
}
