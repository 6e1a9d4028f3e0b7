package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.providers.records.FileConcurrencyRecords;
import dev.cotenant.providers.records.FileHazardLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What a probe leaves behind: the ledger, the concurrency records, and the verdict they lead to. */
@ExtendWith(ProbeHarness.NoneLeft.class)
class StatelessnessTest {
  @TempDir Path records;

  private Cotenant cotenant;
  private Statelessness statelessness;

  @BeforeEach
  void setUp() {
    cotenant = Cotenant.builder().config(ProbeHarness.config()).recordsDirectory(records).build();
    statelessness = cotenant.statelessness();
  }

  private static ProbeSpec remember() {
    return ProbeSpec.of("remember", ArgumentTemplate.parse("--args", "{\"target\": \"{marker}\", \"workspace\": \"{workspace}\"}"));
  }

  private Verdict assess(ServerDescription server) {
    String id = statelessness.identityOf(server);
    return cotenant.assess(statelessness.evidenceInput(server, Optional.empty()), PreflightOutcome.passed(),
        cotenant.recordStores().hazardLedger().codesFor(server.name(), id));
  }

  @Test
  void aLeakIsRecordedInTheLedgerOnDiskAndTheServerReadsRefuted() throws Exception {
    ServerDescription global = ProbeHarness.server("global", "global");
    assertEquals(Strength.MEASURED, assess(global).strength());

    ProbeReport r = statelessness.probe(global, remember());
    assertEquals(Outcome.LEAKED, r.outcome());
    assertEquals(Optional.empty(), r.notRecorded());
    String id = statelessness.identityOf(global);
    assertEquals(id, r.identity());
    // Flushed: a ledger opened afresh on the same directory sees it under the current identity.
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), FileHazardLedger.open(records).codesFor("global", id));

    Verdict v = assess(global);
    assertEquals(Strength.REFUTED, v.strength());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak")), v.toString());
    assertFalse(v.recommendShare());
    assertFalse(v.recommendStub());
    assertTrue(statelessness.record("global").isEmpty(), "a leak remembers no pass");
  }

  @Test
  void aLeakThatCannotBeWrittenComesBackWithTheReportAndStaysInTheRuntimesLedger() throws Exception {
    Path notADirectory = Files.writeString(records.resolve("plain"), "a file where the records directory should be");
    Cotenant unwritable = Cotenant.builder().config(ProbeHarness.config()).recordsDirectory(notADirectory).build();
    ServerDescription global = ProbeHarness.server("global", "global");

    ProbeReport r = unwritable.statelessness().probe(global, remember());

    assertEquals(Outcome.LEAKED, r.outcome());
    assertEquals(5, r.rounds().size());
    String why = r.notRecorded().orElseThrow();
    assertTrue(why.startsWith("cross_session_leak for global was not written to the hazard ledger: "), why);
    assertTrue(why.contains(notADirectory.toString()), why);
    String id = unwritable.statelessness().identityOf(global);
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), unwritable.recordStores().hazardLedger().codesFor("global", id),
        "the observation stays in the runtime's ledger for a later flush");
  }

  @Test
  void aPassIsRememberedUnderTheCurrentIdentityAndSurfacesAsSupportingEvidence() throws Exception {
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    ProbeReport r = statelessness.probe(echo, remember());
    assertEquals(Outcome.PASSED, r.outcome());
    assertEquals(Optional.empty(), r.notRecorded());

    ConcurrencyRecord stored = FileConcurrencyRecords.open(records).get("echo").orElseThrow();
    assertEquals(ConcurrencyModel.SIDECAR, stored.model());
    assertTrue(stored.probedUnder(statelessness.identityOf(echo)));
    assertEquals("remember", stored.probe().orElseThrow().tool());
    assertEquals(5, stored.probe().orElseThrow().rounds());

    Verdict v = assess(echo);
    assertEquals(Strength.MEASURED, v.strength(), "a pass alone is supporting evidence, never grounds");
    assertTrue(v.reasons().contains(new Reason(ReasonCode.STATELESSNESS_PROBE_PASSED, "remember x5")), v.toString());
    assertFalse(v.has(ReasonCode.REGISTERED_SHARED));
    assertFalse(v.recommendShare());
    assertEquals(Set.of(), cotenant.recordStores().hazardLedger().codesForName("echo"));
  }

  @Test
  void registeringSharedNeedsAWholeSurfacePassUnderTheCurrentIdentityAndThenReadsDeclared() throws Exception {
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    RegistrationRefusedException none = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4)));
    assertEquals("refusing to register echo as shared: no whole-surface statelessness probe has passed for it; run "
        + "`cotenant probe-stateless echo` first", none.getMessage());
    assertTrue(statelessness.record("echo").isEmpty(), "a refusal writes nothing");

    // A single-tool pass is supporting evidence only: it cannot back the registration.
    assertEquals(Outcome.PASSED, statelessness.probe(echo, remember()).outcome());
    RegistrationRefusedException oneTool = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4)));
    assertEquals("refusing to register echo as shared: its statelessness probe covered one tool (remember x5), and "
        + "sharing is decided per process; run the whole-surface probe `cotenant probe-stateless echo` (without --tool) "
        + "first", oneTool.getMessage());

    double before = System.currentTimeMillis() / 1000.0;
    SurfaceReport surface = statelessness.probeSurface(echo, ProbePlan.empty(), 3);
    double after = System.currentTimeMillis() / 1000.0;
    assertEquals(SurfaceReport.Outcome.PASSED, surface.outcome(), surface.toString());
    assertEquals(List.of("remember"), surface.exercised());
    // Kills probeSurface with `clockMillis / 1000.0` made a product: passedAt is in seconds.
    double passedAt = statelessness.record("echo").orElseThrow().probe().orElseThrow().passedAt();
    assertTrue(passedAt >= before && passedAt <= after, before + " <= " + passedAt + " <= " + after);
    RegistrationRefusedException noMax = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.empty()));
    assertTrue(noMax.getMessage().contains("without maxConcurrent"), noMax.getMessage());
    RegistrationRefusedException zero = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(0)));
    assertEquals("maxConcurrent must be a positive integer, got 0 for echo", zero.getMessage());

    ConcurrencyRecord shared = statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4));
    assertEquals(OptionalInt.of(4), shared.maxConcurrent());
    assertTrue(shared.probe().orElseThrow().wholeSurface());
    Verdict v = assess(echo);
    assertEquals(Strength.DECLARED, v.strength(), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.REGISTERED_SHARED, "tenant")), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.STATELESSNESS_PROBE_PASSED,
        "whole surface: 1 tool x3, clients declaring elicitation, roots, sampling")), v.toString());
    assertEquals(List.of("elicitation", "roots", "sampling"),
        shared.probe().orElseThrow().surface().orElseThrow().clientCapabilities(), "the pass as capable clients is on record");
    assertTrue(v.recommendShare());

    // A later single-tool pass under the same identity proves less: the registration keeps its whole-surface pass.
    assertEquals(Outcome.PASSED, statelessness.probe(echo, remember()).outcome());
    assertEquals(shared, statelessness.record("echo").orElseThrow());

    // Another launch identity (here another env) has not earned the registration.
    ServerDescription rebuilt = echo.withEnv(Map.of("PROBE_FLAVOUR", "2"));
    Verdict other = assess(rebuilt);
    assertEquals(Strength.MEASURED, other.strength(), other.toString());
    assertFalse(other.has(ReasonCode.REGISTERED_SHARED));
    assertFalse(other.has(ReasonCode.STATELESSNESS_PROBE_PASSED));
    RegistrationRefusedException elsewhere = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(rebuilt, ConcurrencyModel.SHARED, ShareScope.GLOBAL, OptionalInt.of(2)));
    assertTrue(elsewhere.getMessage().contains("passed under another launch identity"), elsewhere.getMessage());
  }

  @Test
  void aSingleToolPassReplacesAPassOfAnotherIdentityAndARegistrationAndCarriesTheClocksTime() throws Exception {
    // Kills Statelessness.passed with its filter `wholeSurface && same identity` returning true
    // (a single-tool pass left a shared registration resting on another launch's whole-surface
    // pass), and probe with `clockMillis / 1000.0` made a product (passedAt in seconds).
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    Statelessness s = new Statelessness(cotenant.recordStores().hazardLedger(), FileConcurrencyRecords.open(records),
        cotenant::identityOf, ProbeHarness.probe(), ProbeHarness.surface(), () -> 1_700_000_000_000L);
    FileConcurrencyRecords.open(records).update("echo", current -> Optional.of(new ConcurrencyRecord("echo",
        ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2), Optional.of(ProbePass.wholeSurface(
            "an-older-launch", 3, 1.0, ProbePass.Surface.of(List.of("remember"), Map.of()))))));

    assertEquals(Outcome.PASSED, s.probe(echo, remember()).outcome());
    ConcurrencyRecord after = s.record("echo").orElseThrow();
    assertEquals(ConcurrencyModel.SIDECAR, after.model(), "the lapsed registration falls back to sidecar");
    ProbePass pass = after.probe().orElseThrow();
    assertEquals("remember", pass.tool());
    assertEquals(s.identityOf(echo), pass.identity());
    assertEquals(1_700_000_000.0, pass.passedAt());
  }

  @Test
  void aRegistrationKeepsOnlyAPassOfTheCurrentIdentity() throws Exception {
    // Kills register with its filter `p.identity().equals(key)` returning true: a sidecar
    // registration kept a pass another launch had earned.
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    FileConcurrencyRecords.open(records).update("echo", current -> Optional.of(new ConcurrencyRecord("echo",
        ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(),
        Optional.of(new ProbePass("an-older-launch", "remember", 5, 1.0)))));
    ConcurrencyRecord sidecar = statelessness.register(echo, ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty());
    assertEquals(Optional.empty(), sidecar.probe());

    ProbePass current = new ProbePass(statelessness.identityOf(echo), "remember", 5, 2.0);
    FileConcurrencyRecords.open(records).update("echo", c -> Optional.of(new ConcurrencyRecord("echo",
        ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(), Optional.of(current))));
    assertEquals(Optional.of(current),
        statelessness.register(echo, ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(2)).probe());
  }

  @Test
  void aSharedRegistrationSeesAHazardAnotherWriterRecordedSinceTheLedgerWasRead() throws Exception {
    // Kills register without ledger.reload(): a hazard another process had recorded since this
    // runtime read the ledger would not stop the registration.
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    String key = statelessness.identityOf(echo);
    FileConcurrencyRecords.open(records).update("echo", current -> Optional.of(new ConcurrencyRecord("echo",
        ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(), Optional.of(
            ProbePass.wholeSurface(key, 3, 1.0, ProbePass.Surface.of(List.of("remember"), Map.of()))))));
    assertEquals(Set.of(), cotenant.recordStores().hazardLedger().codesFor("echo", key), "read before the other writer");
    FileHazardLedger other = FileHazardLedger.open(records);
    other.record("echo", key, HazardCode.UNROUTABLE_SERVER_REQUEST, 2);
    other.flush();

    RegistrationRefusedException e = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2)));
    assertTrue(e.getMessage().contains("[unroutable_server_request]"), e.getMessage());
    assertEquals(ConcurrencyModel.SIDECAR, statelessness.record("echo").orElseThrow().model());
  }

  @Test
  void aWholeSurfaceLeakIsRecordedAndWithdrawsTheRegistration() throws Exception {
    ServerDescription echo = ProbeHarness.server("flip", "echo");
    assertEquals(SurfaceReport.Outcome.PASSED, statelessness.probeSurface(echo, ProbePlan.empty(), 3).outcome());
    statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2));

    ServerDescription flipped = ProbeHarness.server("flip", "global");
    Statelessness sameIdentity = new Statelessness(cotenant.recordStores().hazardLedger(),
        FileConcurrencyRecords.open(records), server -> cotenant.identityOf(echo), ProbeHarness.probe(),
        ProbeHarness.surface(), () -> 0L);
    SurfaceReport r = sameIdentity.probeSurface(flipped, ProbePlan.empty(), 3);
    assertEquals(SurfaceReport.Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), r.hazardCodes());
    assertEquals(Optional.empty(), r.notRecorded());
    String id = statelessness.identityOf(echo);
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), FileHazardLedger.open(records).codesFor("flip", id));
    ConcurrencyRecord after = statelessness.record("flip").orElseThrow();
    assertEquals(ConcurrencyModel.SIDECAR, after.model(), "the registration is withdrawn");
    assertFalse(after.probedUnder(id));
  }

  @Test
  void sidecarAndWarmPoolNeedNoProbeAndKeepAPassOnRecord() throws Exception {
    ServerDescription echo = ProbeHarness.server("echo", "echo");
    ConcurrencyRecord warm = statelessness.register(echo, ConcurrencyModel.WARM_POOL, ShareScope.TENANT, OptionalInt.of(3));
    assertEquals(ConcurrencyModel.WARM_POOL, warm.model());
    assertTrue(warm.probe().isEmpty());
    assertEquals(Outcome.PASSED, statelessness.probe(echo, remember()).outcome());
    ConcurrencyRecord kept = statelessness.record("echo").orElseThrow();
    assertEquals(ConcurrencyModel.WARM_POOL, kept.model(), "a pass keeps the registration");
    assertTrue(kept.probe().isPresent());
    ConcurrencyRecord back = statelessness.register(echo, ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty());
    assertTrue(back.probe().isPresent());
  }

  @Test
  void aLeakUnderTheRegisteredIdentityWithdrawsTheRegistrationAndTheLedgerBlocksANewOne() throws Exception {
    // The same name first passes (echo mode), then leaks (global mode) under the identity it was
    // registered with: the second runtime resolves every server to that identity.
    ServerDescription echo = ProbeHarness.server("flip", "echo");
    String id = statelessness.identityOf(echo);
    assertEquals(SurfaceReport.Outcome.PASSED, statelessness.probeSurface(echo, ProbePlan.empty(), 3).outcome());
    statelessness.register(echo, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2));

    ServerDescription flipped = ProbeHarness.server("flip", "global");
    Statelessness sameIdentity = new Statelessness(cotenant.recordStores().hazardLedger(),
        FileConcurrencyRecords.open(records), server -> statelessnessIdentity(echo), ProbeHarness.probe(),
        ProbeHarness.surface(), () -> 0L);
    assertEquals(Outcome.LEAKED, sameIdentity.probe(flipped, remember()).outcome());
    ConcurrencyRecord after = statelessness.record("flip").orElseThrow();
    assertEquals(ConcurrencyModel.SIDECAR, after.model());
    assertFalse(after.probedUnder(id));
    RegistrationRefusedException refused = assertThrows(RegistrationRefusedException.class,
        () -> sameIdentity.register(flipped, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(2)));
    assertEquals("refusing to register flip as shared: the hazard ledger holds [cross_session_leak] under its "
        + "current launch identity; an observation outranks any registration", refused.getMessage());
  }

  private dev.cotenant.api.ExecutionIdentity statelessnessIdentity(ServerDescription s) {
    return cotenant.identityOf(s);
  }
}
