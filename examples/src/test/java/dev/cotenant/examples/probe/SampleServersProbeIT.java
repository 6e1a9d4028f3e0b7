package dev.cotenant.examples.probe;

import static dev.cotenant.examples.probe.ProbeFixture.sample;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.probe.ArgumentTemplate;
import dev.cotenant.gateway.probe.ProbeReport;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.gateway.probe.ProbeSpec;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.providers.records.FileHazardLedger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statelessness probe against the real sample servers, each launched through its
 * {@code examples/bin} launcher as {@code examples/mcp.json} lists it (README "Probe templates").
 */
class SampleServersProbeIT {
  @TempDir Path records;

  private Set<Long> before;
  private Cotenant cotenant;
  private Statelessness statelessness;

  @BeforeEach
  void setUp() {
    before = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    cotenant = ProbeFixture.cotenant(records);
    statelessness = cotenant.statelessness();
  }

  @AfterEach
  void noProcessLeft() {
    List<String> alive = new ArrayList<>();
    for (ProcessHandle h : ProcessHandle.current().descendants().filter(h -> !before.contains(h.pid())).toList()) {
      try {
        h.onExit().get(60, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException | InterruptedException e) {
        alive.add(h.pid() + " " + h.info().commandLine().orElse("?"));
        h.descendants().forEach(ProcessHandle::destroyForcibly);
        h.destroyForcibly();
      }
    }
    assertEquals(List.of(), alive, "processes left alive");
  }

  private static ProbeSpec spec(String tool, String args) {
    return ProbeSpec.of(tool, ArgumentTemplate.parse("--args", args));
  }

  private Verdict assess(ServerDescription server) {
    return ProbeFixture.assess(cotenant, statelessness, server);
  }

  private static void assertAllHeld(ProbeReport r) {
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(ProbeSpec.DEFAULT_ROUNDS, r.rounds().size());
    for (Round round : r.rounds()) {
      round.assertions().forEach(a -> assertTrue(a.held(), round.toString()));
    }
  }

  @Test
  void theEchoServerPasses() throws Exception {
    ServerDescription echo = sample("echo");
    assertAllHeld(statelessness.probe(echo, spec("echo", "{\"text\": \"{marker}\", \"workspace\": \"{workspace}\"}")));
    assertTrue(assess(echo).reasons().contains(new Reason(ReasonCode.STATELESSNESS_PROBE_PASSED, "echo x5")));
  }

  @Test
  void theProcessGlobalServerLeaksIntoTheLedgerAndIsRefuted() throws Exception {
    ServerDescription global = sample("global-state");
    assertEquals(Strength.MEASURED, assess(global).strength());
    ProbeReport r = statelessness.probe(global, spec("remember", "{\"target\": \"{marker}\", \"workspace\": \"{workspace}\"}"));
    assertEquals(Outcome.LEAKED, r.outcome(), r.toString());
    assertTrue(r.rounds().stream().allMatch(Round::leaked), r.toString());
    String id = statelessness.identityOf(global);
    assertEquals(Set.of(HazardCode.CROSS_SESSION_LEAK), FileHazardLedger.open(records).codesFor("global-state", id));
    Verdict v = assess(global);
    assertEquals(Strength.REFUTED, v.strength(), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak")));
  }

  @Test
  void theProcessGlobalServerLeaksThroughAReadBackToo() throws Exception {
    ProbeReport r = statelessness.probe(sample("global-state"),
        spec("set_target", "{\"target\": \"{marker}\"}").withReadBack("get_target", ArgumentTemplate.empty()));
    assertEquals(Outcome.LEAKED, r.outcome(), r.toString());
  }

  /** One tool's pass is supporting evidence; only the whole surface registers it (WholeSurfaceProbeIT). */
  @Test
  void theWorkspaceKeyedServersRememberPassesButOneToolCannotRegisterIt() throws Exception {
    ServerDescription keyed = sample("workspace-keyed");
    assertAllHeld(statelessness.probe(keyed, spec("remember", "{\"workspace\": \"{workspace}\", \"target\": \"{marker}\"}")));
    RegistrationRefusedException refused = assertThrows(RegistrationRefusedException.class,
        () -> statelessness.register(keyed, ConcurrencyModel.SHARED, ShareScope.TENANT, OptionalInt.of(4)));
    assertTrue(refused.getMessage().contains("covered one tool (remember x5)"), refused.getMessage());
    Verdict v = assess(keyed);
    assertEquals(Strength.MEASURED, v.strength(), v.toString());
    assertTrue(v.reasons().contains(new Reason(ReasonCode.STATELESSNESS_PROBE_PASSED, "remember x5")), v.toString());
    assertFalse(v.recommendShare());
  }

  @Test
  void theCallerIdentityServerPassesWithEachCallersBlock() throws Exception {
    ProbeReport r = statelessness.probe(sample("caller-identity"), spec("remember", "{\"target\": \"{marker}\"}"));
    assertTrue(r.callerBlocks());
    assertAllHeld(r);
  }

  @Test
  void serverEverythingsEchoPasses() throws Exception {
    ProbeReport r = statelessness.probe(sample("server-everything"), spec("echo", "{\"message\": \"{marker}\"}"));
    assertAllHeld(r);
    assertFalse(r.callerBlocks());
  }

  /**
   * The samples whose {@code echo} takes a {@code text}: {@code discover} is probed through
   * {@code server/discover} (the modern era); {@code clock}'s echo passes though every answer
   * differs; a marker probe sees only the tool it calls, so {@code clock-counter}'s stateless echo
   * passes and says nothing about {@code tick}; {@code destructive}'s echo passes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"discover", "clock", "clock-counter", "destructive"})
  void theEchoOfASampleTakingATextPasses(String name) throws Exception {
    assertAllHeld(statelessness.probe(sample(name), spec("echo", "{\"text\": \"{marker}\"}")));
  }

  /** Run only because a test chose to: each caller wipes a scratch directory of its own, which does not exist. */
  @Test
  void theDestructiveServersWipePassesWhenProbedByName() throws Exception {
    assertAllHeld(statelessness.probe(sample("destructive"), spec("wipe_scratch", "{\"workspace\": \"{marker}\"}")));
  }
}
