package dev.cotenant.providers.records;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.Json;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.StartRecording;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@code shareability-verdicts.json}, entry schema 2 (docs/records.md). On read a
 * row is dropped when its identity is missing, does not parse or carries another pre-flight
 * {@code SCHEMA}, when it cannot say whether the pre-flight ran, or when it ran and cannot say
 * whether it was caller-sensitive. A malformed {@code handshake} is ignored, keeping the row; a
 * handshake nested deeper than {@link #MAX_HANDSHAKE_DEPTH} is not written.
 */
final class CacheCodec {
  private CacheCodec() {}

  /** What reading the cache found. */
  sealed interface Result {}

  /** No file, or not a JSON object: reads as empty. */
  record Empty(String why) implements Result {}

  /**
   * The rows and markers it holds.
   *
   * @param rows rows by server name
   * @param applied the markers
   * @param droppedForeignSchema names of rows dropped for carrying another {@code SCHEMA}
   * @param droppedMalformed names of rows dropped for lacking {@code ran} or another required field
   */
  record Loaded(
      Map<String, PreflightRecord> rows, Set<String> applied, List<String> droppedForeignSchema, List<String> droppedMalformed)
      implements Result {}

  static Result read(Path file) {
    RecordsJson.Read r = RecordsJson.read(file);
    if (r instanceof RecordsJson.Missing) {
      return new Empty("");
    }
    if (r instanceof RecordsJson.Unreadable) {
      return new Empty(((RecordsJson.Unreadable) r).why());
    }
    return decode(((RecordsJson.Parsed) r).root());
  }

  static Result decode(JsonNode root) {
    if (!root.isObject()) {
      return new Empty("is not a JSON object");
    }
    Map<String, PreflightRecord> rows = new TreeMap<>();
    List<String> foreign = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    JsonNode entries = root.get("entries");
    if (entries != null && entries.isObject()) {
      for (Map.Entry<String, JsonNode> e : entries.properties()) {
        String name = e.getKey();
        JsonNode n = e.getValue();
        JsonNode identity = n.isObject() ? n.get("identity") : null;
        if (identity == null || !identity.isString()) {
          malformed.add(name);
          continue;
        }
        ExecutionIdentity parsed;
        try {
          parsed = ExecutionIdentity.parseCacheKey(identity.stringValue());
        } catch (IllegalArgumentException ex) {
          malformed.add(name);
          continue;
        }
        if (!ExecutionIdentity.PREFLIGHT_SCHEMA.equals(parsed.schema())) {
          foreign.add(name);
          continue;
        }
        JsonNode ran = n.get("ran");
        if (ran == null || !ran.isBoolean()) {
          malformed.add(name);
          continue;
        }
        JsonNode sensitive = n.get("callerSensitive");
        boolean callerSensitive = false;
        if (sensitive != null && sensitive.isBoolean()) {
          callerSensitive = sensitive.booleanValue();
        } else if (ran.booleanValue()) {
          malformed.add(name);
          continue;
        }
        List<String> reasons = new ArrayList<>();
        JsonNode rs = n.get("reasons");
        if (rs != null && rs.isArray()) {
          for (JsonNode x : rs) {
            if (x.isString()) {
              reasons.add(x.stringValue());
            }
          }
        }
        JsonNode at = n.get("evaluatedAt");
        double evaluatedAt = at != null && at.isNumber() && Double.isFinite(at.doubleValue()) ? at.doubleValue() : 0.0;
        Start start = decodeStart(n);
        JsonNode v = n.get("reportedVersion");
        Optional<String> version = v != null && v.isString() ? Optional.of(v.stringValue()) : Optional.empty();
        rows.put(
            name,
            new PreflightRecord(
                name,
                identity.stringValue(),
                ran.booleanValue(),
                callerSensitive,
                reasons,
                evaluatedAt,
                version,
                decodeHandshake(n.get("handshake")),
                start.start(),
                start.notRecorded()));
      }
    }
    Set<String> applied = new TreeSet<>();
    JsonNode a = root.get("applied");
    if (a != null && a.isArray()) {
      for (JsonNode x : a) {
        if (x.isString() && !x.stringValue().isEmpty()) {
          applied.add(x.stringValue());
        }
      }
    }
    return new Loaded(rows, applied, foreign, malformed);
  }

  static byte[] encode(Map<String, PreflightRecord> rows, Set<String> applied) {
    ObjectNode root = RecordsJson.NODES.objectNode();
    ObjectNode entries = root.putObject("entries");
    for (PreflightRecord r : new TreeMap<>(rows).values()) {
      ObjectNode n = entries.putObject(r.serverName());
      n.put("identity", r.identity());
      n.put("ran", r.ran());
      n.put("callerSensitive", r.callerSensitive());
      ArrayNode reasons = n.putArray("reasons");
      r.reasons().forEach(reasons::add);
      n.put("evaluatedAt", r.evaluatedAt());
      r.reportedVersion().ifPresent(v -> n.put("reportedVersion", v));
      r.handshake().filter(CacheCodec::shallowEnough).ifPresent(h -> n.set("handshake", encodeHandshake(h)));
      if (r.start().filter(CacheCodec::shallowEnough).isPresent()) {
        n.set("start", RecordsJson.node(r.start().get().toJson()));
      } else if (r.start().isPresent()) {
        n.put("startNotRecorded", "its answers nest deeper than the records keep");
      } else if (!r.startNotRecorded().isEmpty()) {
        n.put("startNotRecorded", r.startNotRecorded());
      }
    }
    ArrayNode ap = root.putArray("applied");
    new TreeSet<>(applied).forEach(ap::add);
    return RecordsJson.bytes(root);
  }

  /**
   * Deepest nesting a stored handshake's {@code serverInfo} or tool annotations may have. A deeper
   * handshake is left out of its row (the row is kept), so a server's JSON can never push the
   * file past the reader's nesting bound and make the whole cache unreadable.
   */
  static final int MAX_HANDSHAKE_DEPTH = 32;

  static boolean shallowEnough(HandshakeFacts h) {
    if (Json.nestsDeeperThan(h.serverInfo(), MAX_HANDSHAKE_DEPTH)) {
      return false;
    }
    for (ToolFacts t : h.tools()) {
      if (t.annotations().isPresent() && Json.nestsDeeperThan(t.annotations().get(), MAX_HANDSHAKE_DEPTH)) {
        return false;
      }
    }
    return true;
  }

  static ObjectNode encodeHandshake(HandshakeFacts h) {
    ObjectNode n = RecordsJson.NODES.objectNode();
    n.put("protocolVersion", h.protocolVersion());
    ArrayNode paths = n.putArray("capabilityPaths");
    h.capabilityPaths().forEach(paths::add);
    ObjectNode flags = n.putObject("capabilityFlags");
    h.capabilityFlags().forEach(flags::put);
    ArrayNode exp = n.putArray("experimentalKeys");
    h.experimentalKeys().forEach(exp::add);
    n.set("serverInfo", RecordsJson.node(h.serverInfo()));
    ArrayNode tools = n.putArray("tools");
    for (ToolFacts t : h.tools()) {
      ObjectNode tn = tools.addObject();
      tn.put("name", t.name());
      t.annotations().ifPresent(a -> tn.set("annotations", RecordsJson.node(a)));
    }
    return n;
  }

  /** A row's start recording, or why there is none. */
  record Start(Optional<StartRecording> start, String notRecorded) {}

  static boolean shallowEnough(StartRecording s) {
    return !Json.nestsDeeperThan(s.toJson(), StartRecording.MAX_DEPTH + 2);
  }

  /**
   * The row's {@code start} (a start recording, docs/records.md), or why there is none: the row's
   * own {@code startNotRecorded}, or, for a {@code start} not in the shape written, that it could
   * not be read. A row written before either existed has neither: no start, no reason.
   */
  static Start decodeStart(JsonNode row) {
    JsonNode s = row.get("start");
    if (s != null && !s.isNull()) {
      try {
        return new Start(Optional.of(StartRecording.fromJson(RecordsJson.plain(s))), "");
      } catch (IllegalArgumentException e) {
        return new Start(Optional.empty(), "the recorded start could not be read: " + e.getMessage());
      }
    }
    JsonNode why = row.get("startNotRecorded");
    return new Start(Optional.empty(), why != null && why.isString() ? why.stringValue() : "");
  }

  /** The stored handshake, or empty when it is absent or not in the shape {@link #encodeHandshake} writes. */
  @SuppressWarnings("unchecked")
  static Optional<HandshakeFacts> decodeHandshake(JsonNode n) {
    if (n == null || !n.isObject()) {
      return Optional.empty();
    }
    JsonNode pv = n.get("protocolVersion");
    JsonNode paths = n.get("capabilityPaths");
    JsonNode flags = n.get("capabilityFlags");
    JsonNode exp = n.get("experimentalKeys");
    JsonNode info = n.get("serverInfo");
    JsonNode tools = n.get("tools");
    if (pv == null || !pv.isString()
        || paths == null || !paths.isArray()
        || flags == null || !flags.isObject()
        || exp == null || !exp.isArray()
        || info == null || !info.isObject()
        || tools == null || !tools.isArray()) {
      return Optional.empty();
    }
    Set<String> pathSet = new TreeSet<>();
    for (JsonNode p : paths) {
      if (!p.isString()) {
        return Optional.empty();
      }
      pathSet.add(p.stringValue());
    }
    Map<String, Boolean> flagMap = new TreeMap<>();
    for (Map.Entry<String, JsonNode> f : flags.properties()) {
      if (!f.getValue().isBoolean()) {
        return Optional.empty();
      }
      flagMap.put(f.getKey(), f.getValue().booleanValue());
    }
    Set<String> expSet = new TreeSet<>();
    for (JsonNode x : exp) {
      if (!x.isString()) {
        return Optional.empty();
      }
      expSet.add(x.stringValue());
    }
    List<ToolFacts> toolList = new ArrayList<>();
    for (JsonNode t : tools) {
      JsonNode name = t.isObject() ? t.get("name") : null;
      if (name == null || !name.isString()) {
        return Optional.empty();
      }
      JsonNode ann = t.get("annotations");
      Optional<Map<String, Object>> annotations = Optional.empty();
      if (ann != null && ann.isObject()) {
        annotations = Optional.of((Map<String, Object>) RecordsJson.plain(ann));
      } else if (ann != null && !ann.isNull()) {
        return Optional.empty();
      }
      toolList.add(new ToolFacts(name.stringValue(), annotations));
    }
    Map<String, Object> serverInfo = new LinkedHashMap<>((Map<String, Object>) RecordsJson.plain(info));
    return Optional.of(new HandshakeFacts(pv.stringValue(), pathSet, flagMap, expSet, serverInfo, toolList));
  }
}
