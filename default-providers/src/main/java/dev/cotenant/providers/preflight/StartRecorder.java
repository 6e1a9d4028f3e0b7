package dev.cotenant.providers.preflight;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.StartRecording;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Decides from the two callers' whole answers whether the server's start can be recorded
 * ({@link StartRecording}): both were answered in the {@code initialize} era, the server sent
 * neither anything of its own before its listings ended, the protocol versions agree (each caller
 * was answered the version it asked for, or both the same one), and the {@code initialize} result
 * (but its version) and every listing are EXACTLY equal, value for value. Otherwise it says why
 * not, in words for a status line. Stateless.
 */
final class StartRecorder {
  /** The most a recording's answers may take as JSON: they are kept in the records and in a daemon's memory. */
  static final int MAX_BYTES = 1024 * 1024;

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private StartRecorder() {}

  /** One caller's part: who asked, what it was told, and the first message the server sent of its own. */
  record Side(Caller caller, CallerSnapshot.Answers answers, @Nullable String unsolicited) {}

  /** The recording, or why there is none. */
  record Outcome(Optional<StartRecording> start, String notRecorded) {}

  /**
   * True when the versions two callers were answered agree: each was answered the version it asked
   * for, or both were answered one version.
   */
  static boolean versionsAgree(String askedA, @Nullable Object answeredA, String askedB, @Nullable Object answeredB) {
    return Objects.equals(answeredA, answeredB) || (askedA.equals(answeredA) && askedB.equals(answeredB));
  }

  static Outcome record(Side a, Side b) {
    for (Side s : List.of(a, b)) {
      if (s.answers().era() != HandshakeEra.INITIALIZE) {
        return none("it answers server/discover (the 2026-07-28 era), whose clients name themselves in every request");
      }
      if (s.unsolicited() != null) {
        return none("it sent " + LogSafe.escape(s.unsolicited(), 80) + " before its listings ended");
      }
    }
    Object versionA = a.answers().handshake().get("protocolVersion");
    Object versionB = b.answers().handshake().get("protocolVersion");
    if (!(versionA instanceof String va) || !(versionB instanceof String vb)
        || !versionsAgree(a.caller().protocolVersion(), va, b.caller().protocolVersion(), vb)) {
      return none("it answered protocol version " + shown(versionA) + " to a caller asking "
          + a.caller().protocolVersion() + " and " + shown(versionB) + " to one asking " + b.caller().protocolVersion());
    }
    Map<String, Object> initA = withoutVersion(a.answers().handshake());
    if (!Json.same(initA, withoutVersion(b.answers().handshake()))) {
      return none("its initialize result differs between callers");
    }
    if (!a.answers().pages().keySet().equals(b.answers().pages().keySet())) {
      return none("its callers were listed different things: " + a.answers().pages().keySet() + " and "
          + b.answers().pages().keySet());
    }
    for (String method : a.answers().pages().keySet()) {
      if (!StartRecording.sameListing(a.answers().pages().get(method), b.answers().pages().get(method))) {
        return none("its " + method + " differs between callers");
      }
    }
    if (Json.nestsDeeperThan(initA, StartRecording.MAX_DEPTH)
        || Json.nestsDeeperThan(a.answers().pages(), StartRecording.MAX_DEPTH)) {
      return none("its answers nest deeper than " + StartRecording.MAX_DEPTH + " levels, more than the records keep");
    }
    long size = MAPPER.writeValueAsBytes(Json.thaw(List.of(initA, a.answers().pages()))).length;
    if (size > MAX_BYTES) {
      return none("its answers take " + size / 1024 + " KiB, more than the " + MAX_BYTES / 1024 + " KiB the records keep");
    }
    TreeMap<String, String> versions = new TreeMap<>();
    versions.put(a.caller().protocolVersion(), va);
    versions.put(b.caller().protocolVersion(), vb);
    return new Outcome(Optional.of(new StartRecording(versions, varied(a.caller(), b.caller()), initA,
        new TreeMap<>(a.answers().pages()))), "");
  }

  /** The capability paths one caller declared and the other did not. */
  static List<String> varied(Caller a, Caller b) {
    TreeSet<String> pa = new TreeSet<>(StartRecording.capabilityPaths(a.capabilities()));
    TreeSet<String> pb = new TreeSet<>(StartRecording.capabilityPaths(b.capabilities()));
    TreeSet<String> out = new TreeSet<>();
    pa.stream().filter(p -> !pb.contains(p)).forEach(out::add);
    pb.stream().filter(p -> !pa.contains(p)).forEach(out::add);
    return List.copyOf(out);
  }

  private static Outcome none(String why) {
    return new Outcome(Optional.empty(), why);
  }

  private static String shown(@Nullable Object version) {
    return version instanceof String s ? LogSafe.escape(s, 40) : "(none)";
  }

  private static Map<String, Object> withoutVersion(Map<String, Object> handshake) {
    Map<String, Object> m = new LinkedHashMap<>(handshake);
    m.remove("protocolVersion");
    return m;
  }
}
