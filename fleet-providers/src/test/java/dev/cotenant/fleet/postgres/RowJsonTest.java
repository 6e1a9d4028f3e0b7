package dev.cotenant.fleet.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HandshakeFacts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The JSON of a stored handshake at its nesting bound, without a server: a handshake nesting
 * exactly {@value RowJson#MAX_DEPTH} deep is stored and read back, one level more is not stored
 * (the row is, without it), so a server's {@code serverInfo} can never make a row unreadable.
 * Mutants of {@link RowJson}: {@code handshake}'s bound at {@code >=}, and {@code depth}'s
 * early stop, its map and list walks and its return.
 */
class RowJsonTest {
  /** A {@code serverInfo} whose deepest value sits {@code depth} levels below the handshake, through maps or lists. */
  private static Object nested(int levels, boolean lists) {
    Object v = "leaf";
    for (int i = 0; i < levels; i++) {
      v = lists ? List.of(v) : Map.of("a", v);
    }
    return v;
  }

  private static HandshakeFacts withServerInfoNesting(int levels, boolean lists) {
    return HandshakeFacts.fromJson("2025-06-18", Map.of(), Map.of("name", "deep", "x", nested(levels, lists)), List.of());
  }

  @Test
  void aHandshakeExactlyAtTheBoundIsStoredAndOneLevelDeeperIsNot() {
    for (boolean lists : List.of(false, true)) {
      // The handshake object is level 0, serverInfo level 1, its "x" level 2: the leaf of
      // `levels` containers below "x" sits at level 2 + levels.
      HandshakeFacts at = withServerInfoNesting(RowJson.MAX_DEPTH - 2, lists);
      Optional<String> stored = RowJson.handshake(at);
      assertTrue(stored.isPresent(), "exactly at the bound, " + (lists ? "lists" : "maps"));
      assertEquals(Optional.of(at), RowJson.readHandshake(stored.get()), "read back whole");
      assertEquals(Optional.empty(), RowJson.handshake(withServerInfoNesting(RowJson.MAX_DEPTH - 1, lists)),
          "one level deeper, " + (lists ? "lists" : "maps"));
    }
  }

  /**
   * A probe's rounds are read up to the largest {@code int} and refused beyond either edge.
   * Mutant: {@code readProbe}'s upper range check at {@code >=}. The lower one at {@code <=} is
   * equivalent: {@code ProbePass} refuses fewer than 3 rounds.
   */
  @Test
  void aProbesRoundsAreReadUpToTheEdgesOfAnInt() {
    String json = RowJson.probe(new dev.cotenant.api.ProbePass("id", "echo", 3, 1.0));
    assertTrue(json.contains("\"rounds\":3"), json);
    assertEquals(Integer.MAX_VALUE, RowJson.readProbe(json.replace("\"rounds\":3", "\"rounds\":" + Integer.MAX_VALUE))
        .rounds());
    for (long beyond : List.of(Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L)) {
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> RowJson.readProbe(json.replace("\"rounds\":3", "\"rounds\":" + beyond)));
    }
  }

  /**
   * The client capabilities a whole-surface pass covered are stored and read back; a probe stored
   * before the field existed reads as covering clients that declare none, and one whose field is
   * not a list of names is refused.
   */
  @Test
  void theClientCapabilitiesOfAWholeSurfacePassAreStoredAndReadBack() {
    dev.cotenant.api.ProbePass pass = dev.cotenant.api.ProbePass.wholeSurface("id", 3, 1.0,
        dev.cotenant.api.ProbePass.Surface.of(List.of("echo"), Map.of(), List.of("roots", "sampling")));
    String json = RowJson.probe(pass);
    assertTrue(json.contains("\"clientCapabilities\":[\"roots\",\"sampling\"]"), json);
    assertEquals(pass, RowJson.readProbe(json));
    String older = json.replace(",\"clientCapabilities\":[\"roots\",\"sampling\"]", "");
    assertEquals(List.of(), RowJson.readProbe(older).surface().orElseThrow().clientCapabilities(), older);
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> RowJson.readProbe(json.replace("[\"roots\",\"sampling\"]", "\"roots\"")));
  }

  /**
   * A stored name reads back exactly, a lone trailing backslash included. Mutants:
   * {@code Text.read}'s end-of-text check at {@code <=} or with a subtraction.
   */
  @Test
  void aStoredNameReadsBackExactly() {
    for (String name : List.of("plain", "a\\b", "nul\0inside", "\\", "\0", "ends with \\")) {
      assertEquals(name, Text.read(Text.store(name)), name);
    }
    assertEquals("ends\\", Text.read("ends\\"), "a lone trailing backslash is kept");
    assertEquals("\\", Text.read("\\"), "a lone backslash is kept");
  }
}
