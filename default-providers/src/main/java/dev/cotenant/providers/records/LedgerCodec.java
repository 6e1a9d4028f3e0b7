package dev.cotenant.providers.records;

import dev.cotenant.api.HazardCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes {@code observed-hazards.json}, schema 1 (docs/records.md). Reading is tolerant at
 * the finest grain that keeps observations: an unknown code is dropped, a server or identity
 * entry of the wrong type is dropped, a bad {@code count} reads as 1 and a bad {@code lastSeen}
 * as 0. Only a file that is not a schema-1 ledger at all is unreadable.
 *
 * <p>Everything dropped that might have held an observation (an entry or a code of the wrong
 * type, an unknown code, an {@code identities} that is not an object) is listed in
 * {@link Loaded#dropped()}: the ledger was then not read completely, which the ledger reports so
 * that nothing recommends sharing until it is. A bad {@code count} or {@code lastSeen} hides no
 * observation and is not listed.
 */
final class LedgerCodec {
  /** The schema this build reads and writes. */
  static final int SCHEMA = 1;

  private static final HazardCode[] CODES = HazardCode.values();

  private LedgerCodec() {}

  /**
   * What one identity of one server observed.
   *
   * @param codes a bit per {@link HazardCode} ordinal; never 0 in a model
   * @param count how many observations
   * @param lastSeen seconds since the epoch of the latest one
   */
  record Obs(int codes, long count, double lastSeen) {
    Obs merge(Obs o) {
      return new Obs(codes | o.codes, count + o.count, Math.max(lastSeen, o.lastSeen));
    }
  }

  /** Server name to identity to observations, both sorted. */
  static Map<String, Map<String, Obs>> emptyModel() {
    return new TreeMap<>();
  }

  /** What reading the ledger found. */
  sealed interface Result {}

  /** No file: nothing observed. */
  record Missing() implements Result {}

  /** Not a schema-1 ledger: nothing observed. */
  record Unreadable(String why) implements Result {}

  /** A newer writer's file: nothing observed, and not to be overwritten. */
  record Future(long schema) implements Result {}

  /**
   * The records it holds.
   *
   * @param servers what could be read
   * @param dropped what was dropped that might have held an observation, each saying where and
   *     why; empty when the file was read completely
   */
  record Loaded(Map<String, Map<String, Obs>> servers, List<String> dropped) implements Result {
    Loaded {
      dropped = List.copyOf(dropped);
    }
  }

  static Result read(Path file) {
    return RecordsJson.readServers(file, SCHEMA, Missing::new, Unreadable::new, Future::new, LedgerCodec::loaded);
  }

  static Result decode(JsonNode root) {
    return RecordsJson.decodeServers(root, SCHEMA, Unreadable::new, Future::new, LedgerCodec::loaded);
  }

  private static Loaded loaded(JsonNode servers) {
    Map<String, Map<String, Obs>> model = emptyModel();
    List<String> dropped = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : servers.properties()) {
      String name = e.getKey();
      JsonNode server = e.getValue();
      String where = "server \"" + name + "\"";
      if (name.isEmpty()) {
        dropped.add("a server entry without a name");
        continue;
      }
      if (!server.isObject()) {
        dropped.add(where + " is not an object");
        continue;
      }
      Map<String, Obs> ids = new TreeMap<>();
      JsonNode identities = server.get("identities");
      if (identities != null && identities.isObject()) {
        for (Map.Entry<String, JsonNode> id : identities.properties()) {
          Obs o = decodeObs(id.getValue(), where + " identity \"" + id.getKey() + "\"", dropped);
          if (o != null) {
            ids.put(id.getKey(), o);
          }
        }
      } else {
        if (identities != null && !identities.isNull()) {
          dropped.add(where + ": \"identities\" is not an object (its flat fields are read under no launch identity)");
        }
        Obs o = decodeObs(server, where, dropped);
        if (o != null) {
          ids.put("", o);
        }
      }
      if (!ids.isEmpty()) {
        model.put(name, ids);
      }
    }
    return new Loaded(model, dropped);
  }

  private static Obs decodeObs(JsonNode n, String where, List<String> dropped) {
    if (!n.isObject()) {
      dropped.add(where + " is not an object");
      return null;
    }
    JsonNode codes = n.get("codes");
    if (codes == null || !codes.isArray()) {
      dropped.add(where + ": \"codes\" is " + (codes == null ? "missing" : "not a list"));
      return null;
    }
    int mask = 0;
    for (JsonNode c : codes) {
      if (!c.isString()) {
        dropped.add(where + ": a code that is not a string");
        continue;
      }
      java.util.Optional<HazardCode> h = HazardCode.fromWire(c.stringValue());
      if (h.isEmpty()) {
        dropped.add(where + ": unknown code \"" + c.stringValue() + "\"");
        continue;
      }
      mask |= 1 << h.get().ordinal();
    }
    if (mask == 0) {
      return null;
    }
    JsonNode count = n.get("count");
    long cnt = 1;
    if (count != null && count.isIntegralNumber() && count.canConvertToLong() && count.longValue() > 0) {
      cnt = count.longValue();
    }
    JsonNode last = n.get("lastSeen");
    double ls = 0.0;
    if (last != null && last.isNumber() && Double.isFinite(last.doubleValue()) && last.doubleValue() > 0) {
      ls = last.doubleValue();
    }
    return new Obs(mask, cnt, ls);
  }

  static byte[] encode(Map<String, Map<String, Obs>> model) {
    ObjectNode root = RecordsJson.NODES.objectNode();
    root.put("schema", SCHEMA);
    ObjectNode servers = root.putObject("servers");
    for (Map.Entry<String, Map<String, Obs>> s : new TreeMap<>(model).entrySet()) {
      ObjectNode server = RecordsJson.NODES.objectNode();
      ObjectNode ids = server.putObject("identities");
      int union = 0;
      long total = 0;
      double last = 0.0;
      for (Map.Entry<String, Obs> id : new TreeMap<>(s.getValue()).entrySet()) {
        Obs o = id.getValue();
        if (o.codes() == 0) {
          continue;
        }
        ObjectNode on = ids.putObject(id.getKey());
        writeObs(on, o);
        union |= o.codes();
        total += o.count();
        last = Math.max(last, o.lastSeen());
      }
      if (union == 0) {
        continue;
      }
      writeObs(server, new Obs(union, total, last));
      servers.set(s.getKey(), server);
    }
    return RecordsJson.bytes(root);
  }

  private static void writeObs(ObjectNode n, Obs o) {
    ArrayNode codes = n.putArray("codes");
    for (HazardCode c : codes(o.codes())) {
      codes.add(c.wireName());
    }
    n.put("count", o.count());
    n.put("lastSeen", o.lastSeen());
  }

  /** The codes of a bit mask, in vocabulary order. */
  static Set<HazardCode> codes(int mask) {
    if (mask == 0) {
      return Set.of();
    }
    Set<HazardCode> out = EnumSet.noneOf(HazardCode.class);
    for (HazardCode c : CODES) {
      if ((mask & (1 << c.ordinal())) != 0) {
        out.add(c);
      }
    }
    return Collections.unmodifiableSet(out);
  }
}
