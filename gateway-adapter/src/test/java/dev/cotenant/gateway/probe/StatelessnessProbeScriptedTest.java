package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.ScriptedSessions.arguments;
import static dev.cotenant.gateway.probe.ScriptedSessions.error;
import static dev.cotenant.gateway.probe.ScriptedSessions.failing;
import static dev.cotenant.gateway.probe.ScriptedSessions.result;
import static dev.cotenant.gateway.probe.ScriptedSessions.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.ProbeReport.Outcome;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.gateway.probe.ScriptedSessions.Scripted;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.SessionException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The single-tool statelessness probe over scripted servers in this JVM ({@link ScriptedSessions}):
 * the answers and failures the process-backed {@link StatelessnessProbeTest} has no server for.
 * Each test names the mutant of {@link StatelessnessProbe} it kills.
 */
class StatelessnessProbeScriptedTest {
  private static final String DECLARATION = "example.org/caller-identity";

  private static final ServerDescription SERVER = new ServerDescription("scripted", Transport.STDIO, "scripted-server",
      List.of(), Optional.empty(), Map.of(), Optional.empty(), true);

  private static final ProbeSpec ECHO = ProbeSpec.of("echo", ArgumentTemplate.parse("--args", "{\"text\": \"{marker}\"}"))
      .withRounds(3);

  private static final Map<String, Object> PLAIN = handshake(Map.of("tools", Map.of()));

  private static Map<String, Object> handshake(Map<String, Object> capabilities) {
    return Map.of("protocolVersion", "2025-06-18", "capabilities", capabilities,
        "serverInfo", Map.of("name", "scripted", "version", "1"));
  }

  private static StatelessnessProbe probe(ScriptedSessions sessions, Duration timeout) {
    return new StatelessnessProbe(sessions, HandshakeEra.INITIALIZE, timeout, Set.of(DECLARATION));
  }

  private static ProbeReport run(ScriptedSessions sessions, Duration timeout) throws InterruptedException {
    return probe(sessions, timeout).run(SERVER, "id-scripted", ECHO);
  }

  /** Answers each call with its text. */
  private static ScriptedSessions.Script echo() {
    return (s, method, params) -> text(String.valueOf(arguments(params).get("text")));
  }

  /** Echoes a call's text; {@code answer} instead for the calls whose text starts with {@code prefix}. */
  private static ScriptedSessions.Script echoBut(String prefix, java.util.function.Function<String, Map<String, Object>> answer) {
    return (s, method, params) -> {
      String text = String.valueOf(arguments(params).get("text"));
      return text.startsWith(prefix) ? answer.apply(text) : text(text);
    };
  }

  private static Scripted only(ScriptedSessions sessions) {
    assertEquals(1, sessions.opened.size(), "one backend for both callers");
    return sessions.opened.get(0);
  }

  @Test
  void anErrorOrAnAnswerWithoutAResultObjectIsNotTheCallersMarkerEvenWhenItQuotesIt() throws Exception {
    // Mutants: own returning Optional.empty() for a JSON-RPC error answer, and for an answer whose result is not an object.
    ScriptedSessions errors = new ScriptedSessions(PLAIN,
        echoBut("alpha", marker -> error(-32602, "unknown target " + marker)));
    ProbeReport r = run(errors, Duration.ofSeconds(5));
    assertEquals(Outcome.NO_OWN_MARKER, r.outcome(), r.toString());
    for (Round round : r.rounds()) {
      assertFalse(round.eachGetsOwn().held(), round.toString());
      String detail = round.eachGetsOwn().detail();
      assertTrue(detail.startsWith("A's echo answered a JSON-RPC error, not " + round.markerA() + ": {"), detail);
      assertTrue(detail.contains("\"code\":-32602") && detail.contains("\"message\":\"unknown target " + round.markerA()),
          detail);
      assertTrue(round.aNeverSeesB().held() && round.bNeverSeesA().held(), round.toString());
    }

    ScriptedSessions bare = new ScriptedSessions(PLAIN,
        echoBut("bravo", marker -> Map.of("jsonrpc", "2.0", "id", 1, "result", marker)));
    ProbeReport b = run(bare, Duration.ofSeconds(5));
    assertEquals(Outcome.NO_OWN_MARKER, b.outcome(), b.toString());
    assertEquals("B's echo answered without a result object", b.rounds().get(0).eachGetsOwn().detail());
    assertTrue(only(bare).closed);
  }

  @Test
  void aCallLeftUnansweredEndsTheProbeAtTheTimeLimitNamingTheCaller() throws Exception {
    // Mutant: await waiting deadline + now instead of deadline - now; it then waits until the watchdog aborts the
    // session, and the reason names the whole budget instead of the call.
    // A time limit of 1 s puts the watchdog at 8 s: a loaded machine cannot make it come first.
    ScriptedSessions sessions = new ScriptedSessions(PLAIN, echoBut("bravo", marker -> null));
    ProbeReport r = run(sessions, Duration.ofSeconds(1));
    assertEquals(Outcome.NOT_RUN, r.outcome());
    assertEquals(Optional.of("no answer to caller B's echo in 1 s"), r.notRunReason());
    assertEquals(List.of(), r.rounds());
    assertTrue(only(sessions).closed);
    assertNull(only(sessions).aborted, "ended by the call's own time limit, not by the watchdog");
  }

  @Test
  void aWriteThatNeverReturnsIsEndedByTheWatchdogAfterTheWholeBudget() throws Exception {
    // Mutants: the watchdog's abort removed (the write then returns after 30 s and the probe passes), and the budget
    // timeout * (1 + 2 * rounds) + 1 s computed with a division or a subtraction (another figure in the reason).
    ScriptedSessions sessions = new ScriptedSessions(PLAIN, (s, method, params) -> {
      if (s.next("calls") == 1) {
        long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (s.aborted == null && System.nanoTime() < giveUp) {
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      return text(String.valueOf(arguments(params).get("text")));
    });
    ProbeReport r = run(sessions, Duration.ofMillis(100));
    String reason = "the probe took longer than 1700 ms";
    assertEquals(Outcome.NOT_RUN, r.outcome(), r.toString());
    assertEquals(Optional.of(reason), r.notRunReason());
    assertEquals(reason, only(sessions).aborted);
    assertTrue(only(sessions).closed);
  }

  @Test
  void aFailedAnswerIsNotRunWithTheSessionsReasonOrTheKindOfFailure() throws Exception {
    // Mutants: await's "the cause is a SessionException" negated (its reason lost, or a cast failing), and the
    // "no cause" choice negated (every other failure named "unknown").
    ScriptedSessions exited = new ScriptedSessions(PLAIN, echoBut("alpha",
        marker -> failing(new SessionException(SessionException.Kind.EXITED, "the server exited (status 3)"))));
    ProbeReport r = run(exited, Duration.ofSeconds(5));
    assertEquals(Outcome.NOT_RUN, r.outcome());
    assertEquals(Optional.of("the server exited (status 3)"), r.notRunReason());

    ScriptedSessions broken = new ScriptedSessions(PLAIN, echoBut("bravo",
        marker -> failing(new IllegalStateException("a transport's own bug"))));
    ProbeReport b = run(broken, Duration.ofSeconds(5));
    assertEquals(Outcome.NOT_RUN, b.outcome());
    assertEquals(Optional.of("the answer failed: IllegalStateException"), b.notRunReason());
    assertTrue(only(broken).closed);
  }

  @Test
  void aDeclarationWithoutAUsableKeyNameGetsTheDefaultKey() {
    // Mutant: callerMetaKey returning Optional.empty() for a declaration that names no key (no caller blocks sent).
    StatelessnessProbe p = probe(new ScriptedSessions(PLAIN, echo()), Duration.ofSeconds(5));
    Optional<String> byDefault = Optional.of(StatelessnessProbe.DEFAULT_CALLER_META_KEY);
    assertEquals(byDefault, p.callerMetaKey(handshake(Map.of("experimental", Map.of(DECLARATION, Map.of())))));
    assertEquals(byDefault, p.callerMetaKey(handshake(Map.of("experimental", Map.of(DECLARATION, true)))));
    assertEquals(byDefault, p.callerMetaKey(handshake(Map.of("experimental", Map.of(DECLARATION, Map.of("metaKey", " "))))));
    assertEquals(byDefault, p.callerMetaKey(handshake(Map.of("experimental", Map.of(DECLARATION, Map.of("metaKey", 7))))));
    assertEquals(Optional.of("example.org/who"),
        p.callerMetaKey(handshake(Map.of("experimental", Map.of(DECLARATION, Map.of("metaKey", "example.org/who"))))));
    assertEquals(Optional.empty(), p.callerMetaKey(handshake(Map.of("experimental", Map.of("other/extension", Map.of())))));
    assertEquals(Optional.empty(), p.callerMetaKey(handshake(Map.of("experimental", "not an object"))));
    assertEquals(Optional.empty(), p.callerMetaKey(Map.of("capabilities", List.of())));
  }

  @Test
  void aServerDeclaringTheExtensionWithoutAKeyNameGetsEachCallersBlockUnderTheDefaultKey() throws Exception {
    // The same mutant, through a run: without the blocks such a server could not tell the callers apart.
    ScriptedSessions sessions = new ScriptedSessions(handshake(Map.of("experimental", Map.of(DECLARATION, Map.of()))),
        echo());
    ProbeReport r = run(sessions, Duration.ofSeconds(5));
    assertTrue(r.callerBlocks());
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    List<Map.Entry<String, Map<String, Object>>> calls = only(sessions).requests;
    assertEquals(6, calls.size());
    Set<Object> blocks = new HashSet<>();
    for (int i = 0; i < calls.size(); i++) {
      Round round = r.rounds().get(i / 2);
      @SuppressWarnings("unchecked")
      Map<String, Object> meta = (Map<String, Object>) calls.get(i).getValue().get("_meta");
      @SuppressWarnings("unchecked")
      Map<String, Object> block = (Map<String, Object>) meta.get(StatelessnessProbe.DEFAULT_CALLER_META_KEY);
      assertEquals(i % 2 == 0 ? round.workspaceA().replaceFirst("-\\d+$", "") : round.workspaceB().replaceFirst("-\\d+$", ""),
          block.get("session"), calls.get(i).toString());
      blocks.add(block);
    }
    assertEquals(2, blocks.size(), "one block per caller, the same in every round: " + blocks);
  }

  @Test
  void markersAndWorkspacesAreFreshInEveryRoundAndEveryRun() throws Exception {
    // Mutant: bytes() without SecureRandom.nextBytes (all zero): every run would use the same markers, so state a
    // server kept from an earlier probe (a file, a global) could hand a caller "its" marker without this run's call.
    ScriptedSessions sessions = new ScriptedSessions(PLAIN, echo());
    ProbeReport first = run(sessions, Duration.ofSeconds(5));
    ProbeReport second = run(sessions, Duration.ofSeconds(5));
    assertEquals(Outcome.PASSED, first.outcome(), first.toString());
    assertEquals(Outcome.PASSED, second.outcome(), second.toString());
    Set<String> suffixes = new HashSet<>();
    for (Round round : first.rounds()) {
      suffixes.add(round.markerA().substring(round.markerA().lastIndexOf('-')));
    }
    assertEquals(3, suffixes.size(), "each round's markers end in a suffix of their own: " + first.rounds());
    assertNotEquals(first.rounds().get(0).markerA(), second.rounds().get(0).markerA());
    assertNotEquals(first.rounds().get(0).workspaceA(), second.rounds().get(0).workspaceA());
    assertEquals(2, sessions.opened.size());
    assertTrue(sessions.opened.stream().allMatch(s -> s.closed));
  }

  @Test
  void aReasonIsCutAt300CharactersAndNeverInsideASurrogatePair() {
    // Mutants: bounded's "at most 300" moved to "fewer than 300", its surrogate check negated, and it returning "".
    String exactly = "r".repeat(300);
    assertEquals(exactly, StatelessnessProbe.bounded(exactly));
    assertEquals(exactly + "…", StatelessnessProbe.bounded(exactly + "s"));
    String pairAtTheCut = "r".repeat(299) + "\uD83D\uDE00" + "tail";
    assertEquals("r".repeat(299) + "…", StatelessnessProbe.bounded(pairAtTheCut));
    String pairBeforeTheCut = "r".repeat(298) + "\uD83D\uDE00" + "tail";
    assertEquals("r".repeat(298) + "\uD83D\uDE00…", StatelessnessProbe.bounded(pairBeforeTheCut));
  }

  @Test
  void aDurationReadsInWholeSecondsOrElseMilliseconds() {
    // Mutants: duration's modulus or division made a multiplication, either condition negated, "" returned.
    assertEquals("60 s", StatelessnessProbe.duration(60_000));
    assertEquals("2 s", StatelessnessProbe.duration(2_000));
    assertEquals("1500 ms", StatelessnessProbe.duration(1_500));
    assertEquals("0 ms", StatelessnessProbe.duration(0));
  }
}
