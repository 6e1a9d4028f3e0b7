package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(ProbeHarness.NoneLeft.class)
class StatelessnessProbeTest {
  private static final String ID = "identity-1";

  private static ProbeSpec spec(String json) {
    return ProbeSpec.of("remember", ArgumentTemplate.parse("--args", json));
  }

  @Test
  void aStatelessEchoPassesEveryRoundWithItsThreeAssertions() throws Exception {
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("echo", "echo"), ID,
        spec("{\"text\": \"{marker}\", \"workspace\": \"{workspace}\", \"nested\": [{\"w\": \"in {workspace}\"}]}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(r.passed());
    assertEquals(5, r.rounds().size());
    assertEquals(ID, r.identity());
    for (Round round : r.rounds()) {
      assertEquals(3, round.assertions().size());
      round.assertions().forEach(a -> assertTrue(a.held(), a.toString()));
      assertTrue(round.markerA().startsWith("alpha-" + round.number() + "-"), round.markerA());
      assertTrue(round.markerB().startsWith("bravo-" + round.number() + "-"), round.markerB());
      assertFalse(round.workspaceA().equals(round.workspaceB()));
    }
    assertFalse(r.callerBlocks());
  }

  @Test
  void aProcessGlobalTargetLeaksAndTheReportSaysWhichMarkerAppearedWhere() throws Exception {
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("global", "global"), ID,
        spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.LEAKED, r.outcome(), r.toString());
    Round first = r.rounds().get(0);
    // A's call is written first and the server answers in turn: B is told A's marker.
    assertTrue(first.aNeverSeesB().held());
    assertFalse(first.bNeverSeesA().held());
    assertEquals("A's marker " + first.markerA() + " appeared in B's answer to remember", first.bNeverSeesA().detail());
    assertTrue(first.leaked());
  }

  @Test
  void aServerThatReturnsNothingFailsTheThirdAssertionOnly() throws Exception {
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("silent", "silent"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.NO_OWN_MARKER, r.outcome());
    assertFalse(r.passed());
    for (Round round : r.rounds()) {
      assertTrue(round.aNeverSeesB().held());
      assertTrue(round.bNeverSeesA().held());
      assertFalse(round.eachGetsOwn().held());
      assertTrue(round.eachGetsOwn().detail().contains("did not carry its marker " + round.markerA()),
          round.eachGetsOwn().detail());
      assertTrue(round.eachGetsOwn().detail().contains(round.markerB()), round.eachGetsOwn().detail());
    }
  }

  @Test
  void bothCallsOfARoundAreWrittenBeforeEitherAnswerIsRead(@TempDir Path dir) throws Exception {
    // The server answers neither call of a round until both have arrived: a probe that read one
    // answer before writing the second call would get no answer at all.
    Path log = dir.resolve("arrivals.log");
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("barrier", "barrier", log.toString()), ID,
        ProbeSpec.of("echo", ArgumentTemplate.parse("--args", "{\"text\": \"{marker}\"}")).withRounds(4));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    assertEquals(16, lines.size(), lines.toString());
    for (Round round : r.rounds()) {
      int base = (round.number() - 1) * 4;
      assertEquals(List.of("arrived " + round.markerA(), "arrived " + round.markerB(),
          "answered " + round.markerA(), "answered " + round.markerB()), lines.subList(base, base + 4));
    }
  }

  @Test
  void aServerDeclaringCallerIdentityGetsEachCallersBlockUnderItsMetaKey() throws Exception {
    ProbeSpec withReadBack = spec("{\"target\": \"{marker}\"}").withReadBack("remember", ArgumentTemplate.empty());
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("caller", "caller"), ID, withReadBack);
    assertTrue(r.callerBlocks());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());

    // The same server probed by a runtime that does not recognise the declaration: no blocks, every call refused.
    ProbeReport blind = new StatelessnessProbe(ProbeHarness.sessions(), HandshakeEra.AUTO, java.time.Duration.ofSeconds(60), Set.of()).run(
        ProbeHarness.server("caller", "caller"), ID, withReadBack);
    assertFalse(blind.callerBlocks());
    assertEquals(Outcome.NO_OWN_MARKER, blind.outcome());
    assertTrue(blind.rounds().get(0).eachGetsOwn().detail().contains("isError"), blind.rounds().get(0).toString());
  }

  @Test
  void aReadBackAnswerMustCarryTheMarkerAndIsSearchedForLeaks() throws Exception {
    // global answers the target it held BEFORE the call, and the read-back (target "") replaces it:
    // B's write is told A's marker, A's read-back is told B's (not its own), and B's read-back gets nothing.
    ProbeSpec s = spec("{\"target\": \"{marker}\"}").withReadBack("remember", ArgumentTemplate.parse("--read-back-args", "{}"));
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.server("global", "global"), ID, s);
    assertEquals(Outcome.LEAKED, r.outcome());
    Round first = r.rounds().get(0);
    assertEquals("B's marker " + first.markerB() + " appeared in A's answer to remember (read-back)",
        first.aNeverSeesB().detail());
    assertEquals("A's marker " + first.markerA() + " appeared in B's answer to remember", first.bNeverSeesA().detail());
    assertFalse(first.eachGetsOwn().held());
    assertTrue(first.eachGetsOwn().detail().contains(
        "B's answer to remember (read-back) did not carry its marker " + first.markerB()), first.eachGetsOwn().detail());
    assertTrue(first.eachGetsOwn().detail().startsWith(
        "A's answer to remember (read-back) did not carry its marker " + first.markerA()), first.eachGetsOwn().detail());
  }

  @Test
  void theModernEraIsSpokenThroughServerDiscoverWithPerRequestMeta() throws Exception {
    ProbeReport r = ProbeHarness.probe(CoreSettings.ERA, "discover").run(
        ProbeHarness.server("modern", "modern"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    ProbeReport auto = ProbeHarness.probe().run(ProbeHarness.server("modern", "modern"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, auto.outcome(), auto.toString());
  }

  @Test
  void aLateServerDiscoverAnswerIsTakenWhenTheFallbackInitializeIsRefused() throws Exception {
    ProbeReport r = ProbeHarness.probe(ProbeHarness.DISCOVER_TIMEOUT_MS, "200").run(
        ProbeHarness.server("late", "modern-late"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
  }

  /**
   * A {@code sleep} that ignores SIGTERM, for servers that move it out of their own tree: it is
   * reparented at once and never the server's descendant. The leak check finds it by the
   * environment entry it inherited ({@link ProbeHarness#MARKER}).
   */
  private static final String ORPHAN = "sh -c 'trap \"\" TERM; exec sleep 1000'";

  @Test
  void aDoubleForkedGrandchildThatIgnoresSigtermDoesNotOutliveTheProbe(@TempDir Path dir) throws Exception {
    Path orphans = dir.resolve("orphans");
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.shServer("double-fork", orphans, "echo",
        "(" + ORPHAN + " & echo $! >> \"$COTENANT_TEST_ORPHANS\"); exec $PROBE_SERVER"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(1, ProbeHarness.orphanPids(orphans).size(), "the grandchild was started");
  }

  @Test
  void aSetsidGrandchildThatIgnoresSigtermDoesNotOutliveTheProbe(@TempDir Path dir) throws Exception {
    Path orphans = dir.resolve("orphans");
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.shServer("setsid", orphans, "echo",
        "setsid -f sh -c 'echo $$ >> \"$COTENANT_TEST_ORPHANS\"; trap \"\" TERM; exec sleep 1000'; exec $PROBE_SERVER"),
        ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(1, ProbeHarness.orphanPids(orphans).size(), "the grandchild was started");
  }

  @Test
  void aChildForkedWhenStdinClosesDoesNotOutliveTheProbe(@TempDir Path dir) throws Exception {
    // The shell runs the server (not exec) and starts a child once the server exits on the closed
    // stdin; it is given the time to do so.
    Path orphans = dir.resolve("orphans");
    ProbeReport r = ProbeHarness.probe("cotenant.session.stdin-close-wait-ms", "10000").run(
        ProbeHarness.shServer("fork-on-close", orphans, "echo",
            "$PROBE_SERVER; sleep 1000 & echo $! >> \"$COTENANT_TEST_ORPHANS\""),
        ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertEquals(1, ProbeHarness.orphanPids(orphans).size(), "the child was started");
  }

  @Test
  void fewerThanThreeRoundsAreRefusedWithAClearMessage() {
    ProbeSpec five = spec("{\"target\": \"{marker}\"}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> five.withRounds(2));
    assertEquals("refusing a statelessness probe of 2 rounds: it needs at least 3 "
        + "(a race that fires once in five rounds is still a leak)", e.getMessage());
    IllegalArgumentException one = assertThrows(IllegalArgumentException.class, () -> five.withRounds(1));
    assertTrue(one.getMessage().startsWith("refusing a statelessness probe of 1 round:"), one.getMessage());
    assertEquals(3, five.withRounds(3).rounds());
    assertEquals(5, five.rounds());
  }

  @Test
  void argumentsWithoutAMarkerOrNotAnObjectAreRefused() {
    IllegalArgumentException noMarker = assertThrows(IllegalArgumentException.class,
        () -> ProbeSpec.of("echo", ArgumentTemplate.parse("--args", "{\"text\": \"{workspace}\"}")));
    assertTrue(noMarker.getMessage().contains("must carry {marker}"), noMarker.getMessage());
    IllegalArgumentException array = assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.parse("--args", "[1]"));
    assertTrue(array.getMessage().startsWith("--args must be a JSON object"), array.getMessage());
    IllegalArgumentException broken = assertThrows(IllegalArgumentException.class, () -> ArgumentTemplate.parse("--args", "{"));
    assertTrue(broken.getMessage().startsWith("--args is not valid JSON"), broken.getMessage());
  }

  @Test
  void aServerThatExitsBeforeAnsweringIsNotRunWithTheLastLineOfItsStderr() throws Exception {
    ProbeReport r = ProbeHarness.probe().run(ProbeHarness.sh("crash",
        "echo starting >&2; printf '%s\\n' 'cannot read C:\\token: no such file' >&2; exit 1"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.NOT_RUN, r.outcome());
    // Escaped once, where the session quoted the server: the backslash is doubled, not quadrupled.
    assertEquals(Optional.of("exited 1 before answering: cannot read C:\\\\token: no such file"), r.notRunReason());
  }

  @Test
  void aServerThatNeverAnswersIsNotRunNamingTheTimeLimit() throws Exception {
    ProbeReport r = ProbeHarness.probe(CoreSettings.TIMEOUT_MS, "2000", ProbeHarness.DISCOVER_TIMEOUT_MS, "500")
        .run(ProbeHarness.sh("mute", "exec sleep 1000"), ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.NOT_RUN, r.outcome());
    assertEquals(Optional.of("no answer in 2 s"), r.notRunReason());
  }

  @Test
  void aMistypedCommandIsNotRunAsNotFound() throws Exception {
    ProbeReport r = ProbeHarness.probe().run(ServerDescription.stdio("typo", "cotenant-no-such-command"), ID,
        spec("{\"target\": \"{marker}\"}"));
    assertEquals(Optional.of("command not found: cotenant-no-such-command"), r.notRunReason());
  }

  @Test
  void aServerThatCannotStartIsNotRunNeverPassed() throws Exception {
    ServerDescription missing = ServerDescription.stdio("missing", "/nonexistent/cotenant-test-server");
    ProbeReport r = ProbeHarness.probe().run(missing, ID, spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.NOT_RUN, r.outcome());
    assertEquals(Optional.of("command not found: /nonexistent/cotenant-test-server"), r.notRunReason());
    ProbeReport remote = ProbeHarness.probe().run(ServerDescription.http("remote", "http://127.0.0.1:9/mcp"), ID,
        spec("{\"target\": \"{marker}\"}"));
    assertEquals(Outcome.NOT_RUN, remote.outcome());
    ProbeReport disabled = ProbeHarness.probe().run(ProbeHarness.server("off", "echo").withEnabled(false), ID,
        spec("{\"target\": \"{marker}\"}"));
    assertEquals(Optional.of("disabled: a disabled server is never probed"), disabled.notRunReason());
  }
}
