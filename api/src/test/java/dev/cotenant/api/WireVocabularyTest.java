package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The closed vocabularies as they appear on the wire and in error messages: every value round
 * trips through its wire name, an unknown name is refused, and the lists printed in errors name
 * every value. These are what records, config files and the HTTP API are read with.
 */
class WireVocabularyTest {

  /**
   * Kills Strength.wireName returning "" and Strength.fromWire's negated condition
   * (NegateConditionalsMutator), both uncovered before; and WireNames.of returning ""
   * (EmptyObjectReturnValsMutator), through the error message.
   */
  @Test
  void strengthsRoundTripAndAnUnknownOneListsTheVocabulary() {
    assertEquals("no_objection", Strength.NO_OBJECTION.wireName());
    for (Strength s : Strength.values()) {
      assertEquals(s, Strength.fromWire(s.wireName()));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Strength.fromWire("strong"));
    assertEquals(
        "unknown strength 'strong'; expected one of "
            + "[refuted, disqualified, declared, measured, no_objection, unknown]",
        e.getMessage());
  }

  /**
   * A strength outranks only the weaker ones, never itself. Kills Strength.outranks's changed
   * boundary (ConditionalsBoundaryMutator), negated condition (NegateConditionalsMutator) and
   * true return (BooleanTrueReturnValsMutator), uncovered before.
   */
  @Test
  void aStrengthOutranksOnlyWeakerOnes() {
    assertTrue(Strength.REFUTED.outranks(Strength.DISQUALIFIED));
    assertTrue(Strength.MEASURED.outranks(Strength.UNKNOWN));
    assertFalse(Strength.MEASURED.outranks(Strength.MEASURED));
    assertFalse(Strength.UNKNOWN.outranks(Strength.REFUTED));
  }

  /** Kills the "" wire names and the negated or emptied fromWire of ShareScope and ConcurrencyModel. */
  @Test
  void scopesAndModelsRoundTrip() {
    assertEquals("tenant", ShareScope.TENANT.wireName());
    assertEquals("warm_pool", ConcurrencyModel.WARM_POOL.wireName());
    for (ShareScope s : ShareScope.values()) {
      assertEquals(Optional.of(s), ShareScope.fromWire(s.wireName()));
    }
    for (ConcurrencyModel m : ConcurrencyModel.values()) {
      assertEquals(Optional.of(m), ConcurrencyModel.fromWire(m.wireName()));
    }
    assertEquals(Optional.empty(), ShareScope.fromWire("TENANT"));
    assertEquals(Optional.empty(), ConcurrencyModel.fromWire("pool"));
  }

  /** Kills HazardCode.fromWire's negated condition and its Optional.empty return. */
  @Test
  void hazardCodesRoundTrip() {
    for (HazardCode h : HazardCode.values()) {
      assertEquals(Optional.of(h), HazardCode.fromWire(h.wireName()));
    }
    assertEquals(Optional.empty(), HazardCode.fromWire("not_a_hazard"));
  }

  /** Kills each Optional.empty return of Transport.fromConfig (EmptyObjectReturnValsMutator). */
  @Test
  void transportsAreReadLeniently() {
    assertEquals(Optional.of(Transport.STDIO), Transport.fromConfig("STDIO"));
    assertEquals(Optional.of(Transport.HTTP), Transport.fromConfig("http"));
    assertEquals(Optional.of(Transport.HTTP), Transport.fromConfig("streamable-http"));
    assertEquals(Optional.of(Transport.HTTP), Transport.fromConfig("streamable_http"));
    assertEquals(Optional.of(Transport.SSE), Transport.fromConfig("sse"));
    assertEquals(Optional.empty(), Transport.fromConfig("websocket"));
  }

  /** Kills ReasonCode.allWireNames and WireNames.of returning "" (EmptyObjectReturnValsMutator). */
  @Test
  void allReasonWireNamesAreListed() {
    String all = ReasonCode.allWireNames();
    assertTrue(all.startsWith("[") && all.endsWith("]"), all);
    for (ReasonCode c : ReasonCode.values()) {
      assertTrue(all.contains(c.wireName()), c.wireName() + " missing from " + all);
    }
    assertEquals(ReasonCode.values().length, all.split(", ").length);
  }

  /** Kills ReasonRole.groundsOrNull returning null (NullReturnValsMutator), uncovered before. */
  @Test
  void groundsOrNullAgreesWithGrounds() {
    assertEquals(Strength.REFUTED, ReasonRole.OBSERVATION.groundsOrNull());
    for (ReasonRole r : ReasonRole.values()) {
      assertEquals(r.grounds().orElse(null), r.groundsOrNull());
    }
  }

  /** Kills the "" toString of Json.NULL and of SecretPatterns (EmptyObjectReturnValsMutator). */
  @Test
  void printedFormsAreReadable() {
    assertEquals("null", String.valueOf(Json.NULL));
    assertEquals("SecretPatterns[*_TOKEN, API_*]", SecretPatterns.of(List.of("*_TOKEN", "API_*")).toString());
  }
}
