package dev.cotenant.fleet.postgres;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.Json;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.StartRecording;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The two values the tables keep as JSON text: a pre-flight row's handshake facts and a
 * concurrency record's statelessness probe. Written as plain maps and lists; read back only when
 * every field has the type written, otherwise refused (the caller reads the row as having no
 * handshake, or the record as refused). Nesting and sizes are bounded by the reader, so a hostile
 * server's {@code serverInfo} can never make a row unreadable to the others. Thread-safe.
 */
final class RowJson {
  /** Deepest nesting a stored value may have; a deeper handshake is not stored (the row is). */
  static final int MAX_DEPTH = 32;

  private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH + 8).build())
          .build())
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .build();

  /** Reads and writes start recordings, which nest deeper than a handshake (within {@link StartRecording#MAX_DEPTH}). */
  private static final JsonMapper START_MAPPER = JsonMapper.builder(JsonFactory.builder()
          .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(StartRecording.MAX_DEPTH + 8).build())
          .build())
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .build();

  private RowJson() {}

  /** The handshake as JSON text, or empty when it nests deeper than {@value #MAX_DEPTH}. */
  static Optional<String> handshake(HandshakeFacts h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("protocolVersion", h.protocolVersion());
    m.put("capabilityPaths", new ArrayList<>(h.capabilityPaths()));
    m.put("capabilityFlags", new TreeMap<>(h.capabilityFlags()));
    m.put("experimentalKeys", new ArrayList<>(h.experimentalKeys()));
    m.put("serverInfo", Json.thaw(h.serverInfo()));
    List<Object> tools = new ArrayList<>();
    for (ToolFacts t : h.tools()) {
      Map<String, Object> tm = new LinkedHashMap<>();
      tm.put("name", t.name());
      t.annotations().ifPresent(a -> tm.put("annotations", Json.thaw(a)));
      tools.add(tm);
    }
    m.put("tools", tools);
    if (Json.nestsDeeperThan(m, MAX_DEPTH)) {
      return Optional.empty();
    }
    return Optional.of(MAPPER.writeValueAsString(m));
  }

  /** The handshake stored as {@link #handshake(HandshakeFacts)} writes it, or empty when it is not. */
  @SuppressWarnings("unchecked")
  static Optional<HandshakeFacts> readHandshake(String text) {
    try {
      Object v = MAPPER.readValue(text, Object.class);
      if (!(v instanceof Map<?, ?>)) {
        return Optional.empty();
      }
      Map<String, Object> m = (Map<String, Object>) v;
      Object pv = m.get("protocolVersion");
      Object info = m.get("serverInfo");
      Object flags = m.get("capabilityFlags");
      Object tools = m.get("tools");
      Optional<List<String>> paths = strings(m.get("capabilityPaths"));
      Optional<List<String>> exp = strings(m.get("experimentalKeys"));
      if (!(pv instanceof String) || !(info instanceof Map<?, ?>) || !(flags instanceof Map<?, ?>)
          || !(tools instanceof List<?>) || paths.isEmpty() || exp.isEmpty()) {
        return Optional.empty();
      }
      Map<String, Boolean> flagMap = new TreeMap<>();
      for (Map.Entry<?, ?> f : ((Map<?, ?>) flags).entrySet()) {
        if (!(f.getValue() instanceof Boolean)) {
          return Optional.empty();
        }
        flagMap.put(String.valueOf(f.getKey()), (Boolean) f.getValue());
      }
      List<ToolFacts> toolList = new ArrayList<>();
      for (Object t : (List<?>) tools) {
        if (!(t instanceof Map<?, ?>) || !(((Map<?, ?>) t).get("name") instanceof String)) {
          return Optional.empty();
        }
        Object ann = ((Map<?, ?>) t).get("annotations");
        if (ann != null && !(ann instanceof Map<?, ?>)) {
          return Optional.empty();
        }
        toolList.add(new ToolFacts((String) ((Map<?, ?>) t).get("name"),
            Optional.ofNullable((Map<String, Object>) ann).map(a -> (Map<String, Object>) Json.freeze(a))));
      }
      return Optional.of(new HandshakeFacts((String) pv, new TreeSet<>(paths.get()), flagMap, new TreeSet<>(exp.get()),
          new LinkedHashMap<>((Map<String, Object>) info), toolList));
    } catch (RuntimeException e) {
      // JacksonException included: a stored value not in the shape written reads as no handshake.
      return Optional.empty();
    }
  }

  /** The start recording as JSON text, or empty when it nests deeper than the records keep. */
  static Optional<String> start(StartRecording r) {
    Map<String, Object> json = r.toJson();
    if (Json.nestsDeeperThan(json, StartRecording.MAX_DEPTH + 2)) {
      return Optional.empty();
    }
    return Optional.of(START_MAPPER.writeValueAsString(Json.thaw(json)));
  }

  /**
   * The start recording stored as {@link #start(StartRecording)} writes it.
   *
   * @throws IllegalArgumentException saying what is wrong when it is not in that shape
   */
  static StartRecording readStart(String text) {
    Object v;
    try {
      v = START_MAPPER.readValue(text, Object.class);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("it is not JSON: " + e.getOriginalMessage());
    }
    return StartRecording.fromJson(Json.freeze(v));
  }

  /** The probe as JSON text. */
  static String probe(ProbePass p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("identity", p.identity());
    m.put("tool", p.tool());
    m.put("rounds", p.rounds());
    m.put("passedAt", p.passedAt());
    p.surface().ifPresent(s -> {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("exercised", s.exercised());
      sm.put("skipped", s.skipped());
      if (!s.clientCapabilities().isEmpty()) {
        sm.put("clientCapabilities", s.clientCapabilities());
      }
      if (!s.protocolVersions().isEmpty()) {
        sm.put("protocolVersions", s.protocolVersions());
      }
      m.put("surface", sm);
    });
    return MAPPER.writeValueAsString(m);
  }

  /**
   * The probe stored as {@link #probe(ProbePass)} writes it.
   *
   * @throws IllegalArgumentException saying what is wrong when it is not in that shape, or the
   *     probe's own constructor refuses it
   */
  @SuppressWarnings("unchecked")
  static ProbePass readProbe(String text) {
    Object v;
    try {
      v = MAPPER.readValue(text, Object.class);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("the probe is not JSON: " + e.getOriginalMessage());
    }
    if (!(v instanceof Map<?, ?>)) {
      throw new IllegalArgumentException("the probe is not a JSON object");
    }
    Map<String, Object> m = (Map<String, Object>) v;
    if (!(m.get("identity") instanceof String) || !(m.get("tool") instanceof String)
        || !(m.get("rounds") instanceof Long) || !(m.get("passedAt") instanceof Number)) {
      throw new IllegalArgumentException("the probe lacks identity, tool, rounds or passedAt of the right type");
    }
    long rounds = (Long) m.get("rounds");
    if (rounds > Integer.MAX_VALUE || rounds < Integer.MIN_VALUE) {
      throw new IllegalArgumentException("the probe's rounds are out of range: " + rounds);
    }
    Optional<ProbePass.Surface> surface = Optional.empty();
    Object s = m.get("surface");
    if (s != null) {
      if (!(s instanceof Map<?, ?>)) {
        throw new IllegalArgumentException("the probe's surface is not an object");
      }
      Optional<List<String>> exercised = strings(((Map<?, ?>) s).get("exercised"));
      Object skipped = ((Map<?, ?>) s).get("skipped");
      if (exercised.isEmpty() || !(skipped instanceof Map<?, ?>)) {
        throw new IllegalArgumentException("the probe's surface lacks exercised or skipped");
      }
      Map<String, String> skippedMap = new TreeMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) skipped).entrySet()) {
        if (!(e.getValue() instanceof String)) {
          throw new IllegalArgumentException("the probe's skipped reasons are not strings");
        }
        skippedMap.put(String.valueOf(e.getKey()), (String) e.getValue());
      }
      Object c = ((Map<?, ?>) s).get("clientCapabilities");
      Optional<List<String>> clients = c == null ? Optional.of(List.of()) : strings(c);
      if (clients.isEmpty()) {
        throw new IllegalArgumentException("the probe's client capabilities are not a list of names");
      }
      Object pv = ((Map<?, ?>) s).get("protocolVersions");
      Optional<List<String>> versions = pv == null ? Optional.of(List.of()) : strings(pv);
      if (versions.isEmpty()) {
        throw new IllegalArgumentException("the probe's protocol versions are not a list of versions");
      }
      surface = Optional.of(ProbePass.Surface.of(exercised.get(), skippedMap, clients.get(), versions.get()));
    }
    return new ProbePass((String) m.get("identity"), (String) m.get("tool"), (int) rounds,
        ((Number) m.get("passedAt")).doubleValue(), surface);
  }

  private static Optional<List<String>> strings(Object v) {
    if (!(v instanceof List<?>)) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>();
    for (Object o : (List<?>) v) {
      if (!(o instanceof String)) {
        return Optional.empty();
      }
      out.add((String) o);
    }
    return Optional.of(out);
  }
}
