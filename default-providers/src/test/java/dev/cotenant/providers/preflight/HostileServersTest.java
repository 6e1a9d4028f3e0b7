package dev.cotenant.providers.preflight;

import static dev.cotenant.providers.preflight.PreflightHarness.assertNoDivergence;
import static dev.cotenant.providers.preflight.PreflightHarness.transport;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.testkit.process.CountingSessionTransport;
import dev.cotenant.testkit.process.EnvironmentScan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One integration test per hostile server: the pass completes within its bounds (the class-wide
 * timeout is far above every configured bound), the server resolves to {@code ran=false} with a
 * short reason or to a measurement, nothing escapes as an exception, and no process it started is
 * alive afterwards: neither a descendant nor a process that left the tree (found by the
 * environment entry every test server carries, {@link PreflightHarness#marker()}).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostileServersTest extends HarnessedProcessTest {
  /** Not run, for exactly {@code reason}. */
  private static void assertReason(PreflightResult r, String reason) {
    assertNotRun(r, reason);
    assertEquals(reason, r.notRunReason());
  }

  private static void assertNotRun(PreflightResult r, String reasonPart) {
    assertFalse(r.ran(), "expected the pre-flight not to run");
    assertTrue(r.notRunReason().contains(reasonPart), () -> "reason was: " + r.notRunReason());
    assertTrue(r.notRunReason().length() < 400, "a short reason");
    assertTrue(r.divergentFacets().isEmpty());
    assertTrue(r.handshake().isEmpty());
  }

  @Test
  void garbageOnStdout() throws Exception {
    PreflightResult r = transport().preflight(h.shServer("garbage", "while :; do echo 'garbage <<>> {'; done"));
    assertNotRun(r, "lines that are not JSON-RPC");
  }

  @Test
  void binaryNoiseOnStdout() throws Exception {
    PreflightResult r = transport().preflight(h.shServer("noise", "head -c 300000 /dev/urandom; exec sleep 1000"));
    assertFalse(r.ran());
  }

  @Test
  void floodingNotificationsInsteadOfAnswering() throws Exception {
    PreflightResult r = transport().preflight(
        h.shServer("chatter", "yes '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}'"));
    assertNotRun(r, "wrote more than 10000 messages");
  }

  @Test
  void writingMoreThanTheTotalByteBound() throws Exception {
    String pad = "x".repeat(1000);
    PreflightResult r = transport(PreflightSettings.MAX_TOTAL_BYTES, "100000").preflight(
        h.shServer("verbose", "yes '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"pad\":\"" + pad + "\"}}'"));
    assertNotRun(r, "wrote more than 100000 bytes to stdout");
  }

  @Test
  void aTwentyMegabyteLine() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("huge", "hugeline"));
    assertNotRun(r, "longer than 8388608 bytes");
  }

  @Test
  void jsonNestedOneHundredThousandDeep() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("nested", "nested"));
    assertNotRun(r, "nesting deeper than 64");
  }

  @Test
  void neverAnswering() throws Exception {
    PreflightResult r = transport(PreflightSettings.TIMEOUT_MS, "1500").preflight(h.shServer("mute", "exec sleep 1000"));
    assertReason(r, "no answer in 1500 ms");
  }

  @Test
  void neverAnsweringIsReportedInWholeSecondsAfterTheFallback() throws Exception {
    // auto era: server/discover goes unanswered for 500 ms, then initialize for the rest of the 2 s.
    PreflightResult r = transport(PreflightSettings.TIMEOUT_MS, "2000", PreflightSettings.DISCOVER_TIMEOUT_MS, "500")
        .preflight(h.shServer("mute", "exec sleep 1000"));
    assertReason(r, "no answer in 2 s");
  }

  @Test
  void ignoringStdinCloseAndSigtermWithoutAnswering() throws Exception {
    PreflightResult r = transport(PreflightSettings.TIMEOUT_MS, "1500")
        .preflight(h.shServer("stubborn", "trap '' TERM; exec sleep 1000"));
    assertReason(r, "no answer in 1500 ms");
  }

  @Test
  void answeringButIgnoringStdinCloseAndSigterm() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("immortal", "legacy", "immortal"));
    assertNoDivergence(r);
  }

  @Test
  void forkingAChildThatIgnoresSigterm() throws Exception {
    ServerDescription server = h.shThenJava("forker",
        "sh -c 'echo $$ >> \"$COTENANT_TEST_PIDS\"; trap \"\" TERM; exec sleep 1000' &", "legacy");
    PreflightResult r = transport().preflight(server);
    assertNoDivergence(r);
    // Two shells, two forked children, and the same two pids again from the exec'd servers.
    h.assertRecordedAtLeast(4);
  }

  /**
   * A process the server moves out of its own tree is reparented at once, so it is never the
   * server's descendant: each leaves a {@code sleep} that ignores SIGTERM and records its pid in
   * {@code $COTENANT_TEST_PIDS.orphans}. The leak check finds such a process by the environment
   * entry it inherited.
   */
  private static final String ORPHAN = "sh -c 'trap \"\" TERM; exec sleep 1000'";

  @Test
  void aDoubleForkedGrandchildThatIgnoresSigterm() throws Exception {
    // The subshell starts the grandchild and exits: the grandchild is reparented before the
    // server has answered anything.
    PreflightResult r = transport().preflight(h.shThenJava("double-fork",
        "(" + ORPHAN + " & echo $! >> \"$COTENANT_TEST_PIDS.orphans\");", "legacy"));
    assertNoDivergence(r);
    h.assertOrphansStarted(2);
  }

  @Test
  void aSetsidGrandchildThatIgnoresSigterm() throws Exception {
    // setsid -f forks, and the fork starts a session of its own; its parent exits at once.
    PreflightResult r = transport().preflight(h.shThenJava("setsid",
        "setsid -f sh -c 'echo $$ >> \"$COTENANT_TEST_PIDS.orphans\"; trap \"\" TERM; exec sleep 1000';", "legacy"));
    assertNoDivergence(r);
    h.assertOrphansStarted(2);
  }

  @Test
  void forkingAChildWhenStdinCloses() throws Exception {
    // The shell runs the server (not exec) and, once the server exits on the closed stdin, starts
    // a child and exits itself: the child appears after the last look at the server's tree. The
    // shell gets the time to do it, so the child really is started.
    String server = PreflightHarness.javaCommand("legacy").stream().map(PreflightHarness::shQuote)
        .collect(java.util.stream.Collectors.joining(" "));
    PreflightResult r = transport(PreflightSettings.STDIN_CLOSE_WAIT_MS, "5000").preflight(h.shServer("fork-on-close",
        server + "; sleep 1000 & echo $! >> \"$COTENANT_TEST_PIDS.orphans\""));
    assertNoDivergence(r);
    h.assertOrphansStarted(2);
  }

  @Test
  void aProcessOutsideTheTreeThatKeepsReplacingItself() throws Exception {
    // Every 10 ms the current hopper starts its successor and exits, so its pid keeps changing;
    // it ignores SIGTERM. It gives up by itself after 3000 hops (well over 30 s), so a hopper that
    // escaped would not outlive the build.
    String hop = "trap \"\" TERM; n=${HOPS:-0}; [ \"$n\" -ge 3000 ] && exit 0;"
        + " [ \"$n\" -eq 0 ] && echo $$ >> \"$COTENANT_TEST_PIDS.orphans\";"
        + " export HOPS=$((n+1)); sleep 0.01; sh -c \"$HOP\" &";
    PreflightResult r = transport().preflight(h.shThenJava("hopper",
        "export HOP=" + PreflightHarness.shQuote(hop) + "; (sh -c \"$HOP\" &);", "legacy"));
    assertNoDivergence(r);
    h.assertOrphansStarted(2);
    assertEquals(List.of(), EnvironmentScan.carriers(h.marker()), "a hopper outlived the pre-flight's teardown");
  }

  @Test
  void floodingStderr() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("loud", "legacy", "stderr-flood"));
    assertNoDivergence(r);
  }

  @Test
  void floodingStderrFromAForkedChild() throws Exception {
    PreflightResult r = transport().preflight(h.shThenJava("loud-child", "yes noise >&2 &", "legacy"));
    assertNoDivergence(r);
  }

  @Test
  void wrongAndDuplicateResponseIds() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("ids", "legacy", "wrong-ids"));
    assertNoDivergence(r);
    assertEquals("test-server", r.handshake().orElseThrow().serverInfo().get("name"));
  }

  @Test
  void onlyWrongIdsNeverAnswer() throws Exception {
    String script = "while read -r line; do echo '{\"jsonrpc\":\"2.0\",\"id\":9999,\"result\":{}}'; done";
    PreflightResult r = transport(PreflightSettings.TIMEOUT_MS, "1500").preflight(h.shServer("wrong", script));
    assertReason(r, "no answer in 1500 ms");
  }

  @Test
  void exitingMidHandshake() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("quitter", "legacy", "exit-after-initialize"));
    assertReason(r, "exited 3 before answering tools/list: fatal: lost my backend");
  }

  @Test
  void exitingBeforeAnsweringForWantOfACredential() throws Exception {
    PreflightResult r = transport().preflight(h.shServer("needs-token", "echo 'EXAMPLE_API_TOKEN is not set' >&2; exit 1"));
    assertReason(r, "exited 1 before answering: EXAMPLE_API_TOKEN is not set");
  }

  @Test
  void exitingBeforeAnsweringAfterPagesOfStderrKeepsTheLastLine() throws Exception {
    PreflightResult r = transport().preflight(h.shServer("verbose-crash",
        "head -c 100000 /dev/zero | tr '\\0' x >&2; printf '\\nfatal: the real reason\\n\\n' >&2; exit 2"));
    assertReason(r, "exited 2 before answering: fatal: the real reason");
  }

  @Test
  void exitingBeforeAnsweringWithoutAWord() throws Exception {
    assertReason(transport().preflight(h.shServer("silent-crash", "exit 7")), "exited 7 before answering");
  }

  @Test
  void exitingBeforeAnsweringWithAHostileStderrLineIsEscapedAndBounded() throws Exception {
    PreflightResult r = transport().preflight(h.shServer("hostile-crash",
        "printf 'boom \\033[31m C:\\\\tmp %0500d' 0 >&2; exit 1"));
    assertNotRun(r, "exited 1 before answering: boom \\u001b[31m C:\\\\tmp 0000");
    assertTrue(r.notRunReason().endsWith("0…"), r.notRunReason());
    assertEquals("exited 1 before answering: ".length() + 160 + 1, r.notRunReason().length(), r.notRunReason());
  }

  @Test
  void controlCharactersInServerInfoVersion() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("forger", "legacy", "control-version"));
    assertNoDivergence(r);
    String version = r.reportedVersion().orElseThrow();
    assertEquals("1.0\n\u001b[31mFORGED LOG LINE\u0007", version, "kept verbatim as evidence");
    assertFalse(LogSafe.escape(version).contains("\n"));
  }

  @Test
  void aNextCursorThatRepeats() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("loop", "legacy", "cursor-loop"));
    assertNotRun(r, "tools/list repeated a nextCursor");
  }

  @Test
  void aNextCursorThatNeverEnds() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("endless", "legacy", "cursor-endless"));
    assertNotRun(r, "tools/list did not end within 100 pages");
  }

  @Test
  void oneHundredThousandTools() throws Exception {
    PreflightResult r = transport().preflight(h.javaServer("many", "legacy", "many-tools"));
    assertNotRun(r, "tools/list listed more than 10000 items");
  }

  @Test
  void oneHundredThousandToolsUnderRaisedBoundsAreMeasured() throws Exception {
    PreflightResult r = transport(PreflightSettings.MAX_LIST_ITEMS, "200000")
        .preflight(h.javaServer("many", "legacy", "many-tools"));
    assertNoDivergence(r);
    assertEquals(100_000, r.handshake().orElseThrow().tools().size());
  }

  @Test
  void aMissingBinary() throws Exception {
    PreflightResult r = transport().preflight(ServerDescription.stdio("ghost", "/nonexistent/cotenant-no-such-server"));
    assertReason(r, "command not found: /nonexistent/cotenant-no-such-server");
  }

  @Test
  void aMistypedCommandOnNoPathDirectory() throws Exception {
    PreflightResult r = transport().preflight(ServerDescription.stdio("typo", "cotenant-no-such-command", "--stdio"));
    assertReason(r, "command not found: cotenant-no-such-command");
  }

  @Test
  void aFileThatIsNotExecutable() throws Exception {
    Path script = Files.writeString(dir.resolve("server.sh"), "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
    assertReason(transport().preflight(ServerDescription.stdio("plain", script.toString())),
        "not executable: " + script);
    // A relative command is named by the file it resolves to in the server's working directory.
    assertReason(transport().preflight(ServerDescription.stdio("relative", "./server.sh").withCwd(Optional.of(dir.toString()))),
        "not executable: " + script);
  }

  @Test
  void aDirectoryAsTheCommand() throws Exception {
    assertReason(transport().preflight(ServerDescription.stdio("dir", dir.toString())), "not executable: " + dir);
  }

  /** Writes {@code text} to {@code name} in the test's directory and makes it executable. */
  private Path executableScript(String name, String text) throws Exception {
    Path script = Files.writeString(dir.resolve(name), text);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  @Test
  void aScriptWhoseInterpreterIsMissing() throws Exception {
    Path script = executableScript("server.py", "#!/nonexistent/cotenant-python3 -u\nprint('hi')\n");
    assertReason(transport().preflight(ServerDescription.stdio("py", script.toString())),
        "interpreter not found: /nonexistent/cotenant-python3 (named by " + script + ")");
  }

  @Test
  void aScriptWithWindowsLineEndings() throws Exception {
    Path script = executableScript("server.sh", "#!/bin/sh\r\nexit 0\r\n");
    assertReason(transport().preflight(ServerDescription.stdio("crlf", script.toString())),
        "interpreter not found: /bin/sh\\r (named by " + script + ")");
  }

  @Test
  void aWorkingDirectoryThatDoesNotExist() throws Exception {
    PreflightResult r = transport().preflight(
        ServerDescription.stdio("lost", "sh", "-c", "exit 0").withCwd(java.util.Optional.of("/nonexistent/dir")));
    assertNotRun(r, "working directory not found: /nonexistent/dir");
  }

  @Test
  void notStdioAndDisabledServersAreNeverSpawned() throws Exception {
    assertNotRun(transport().preflight(ServerDescription.http("remote", "https://example.invalid/mcp")), "not a stdio server");
    assertNotRun(transport().preflight(h.shServer("off", "exit 0").withEnabled(false)), "disabled");
    assertEquals(0, h.recordedPids().size());
  }

  @Test
  void cancellationPassesThroughAndStillTearsDown() throws Exception {
    StdioPreflightTransport t = transport(PreflightSettings.TIMEOUT_MS, "60000");
    ServerDescription mute = h.shServer("mute", "trap '' TERM; exec sleep 1000");
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      started.countDown();
      try {
        t.preflight(mute);
        thrown.complete(null);
      } catch (Throwable e) {
        thrown.complete(e);
      }
    });
    caller.start();
    started.await();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (h.recordedPids().size() < 2 && System.nanoTime() < until) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    assertEquals(2, h.recordedPids().size(), "both callers spawned");
    caller.interrupt();
    Throwable e = thrown.get(30, TimeUnit.SECONDS);
    assertTrue(e instanceof InterruptedException, "got " + e);
  }

  @Test
  void manyHostileServersInOnePassUnderTheCeiling() throws Exception {
    PreflightSettings settings = PreflightHarness.settings(PreflightSettings.TIMEOUT_MS, "3000", PreflightSettings.MAX_PROCESSES, "2");
    CountingSessionTransport sessions = new CountingSessionTransport(new StdioSessionTransport(settings.sessionSettings()));
    StdioPreflightTransport t = new StdioPreflightTransport(sessions, settings);
    ServerDescription[] servers = {
        h.shServer("garbage", "while :; do echo nope; done"),
        h.shServer("mute", "exec sleep 1000"),
        h.shServer("dies", "exit 7"),
        ServerDescription.stdio("ghost", "/nonexistent/x"),
    };
    CompletableFuture<?>[] all = new CompletableFuture<?>[servers.length];
    for (int i = 0; i < servers.length; i++) {
      ServerDescription s = servers[i];
      all[i] = CompletableFuture.supplyAsync(() -> {
        try {
          return t.preflight(s);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
    }
    for (CompletableFuture<?> f : all) {
      try {
        assertFalse(((PreflightResult) f.get(60, TimeUnit.SECONDS)).ran());
      } catch (ExecutionException e) {
        throw new AssertionError("a pre-flight escaped with an exception", e.getCause());
      }
    }
    // Eight callers over four servers, two at a time: the ceiling is reached and never passed.
    assertTrue(sessions.peakSeenAlive() > 1, "never two server processes alive at once: " + sessions.peakSeenAlive());
    assertTrue(sessions.peakPossiblyLive() <= settings.maxProcesses(),
        "more server processes than the ceiling of " + settings.maxProcesses() + " may have run at once: "
            + sessions.peakPossiblyLive());
    assertThrows(IllegalArgumentException.class, () -> transport(PreflightSettings.MAX_PROCESSES, "0"));
  }
}
