package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.LogSafe;
import dev.cotenant.providers.preflight.HarnessedProcessTest;
import dev.cotenant.providers.preflight.PreflightHarness;
import dev.cotenant.providers.preflight.PreflightSettings;
import dev.cotenant.providers.session.ServerProcess.Eof;
import dev.cotenant.providers.session.ServerProcess.Event;
import dev.cotenant.providers.session.ServerProcess.Exit;
import dev.cotenant.providers.session.ServerProcess.Fatal;
import dev.cotenant.providers.session.ServerProcess.Message;
import dev.cotenant.spi.SessionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One spawned process at the exact edges of what its stdout reader and its stderr tail accept,
 * with {@code sh} scripts whose output is known to the byte. Each test names in its comment the
 * mutant of {@link ServerProcess} it kills; the hostile servers of {@link HostileServersTest} go
 * far past each bound, these stop exactly at it. Every process a test starts is gone afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerProcessTest extends HarnessedProcessTest {
  final List<ServerProcess> started = new ArrayList<>();

  /** Runs before the inherited check that nothing survives. */
  @AfterEach
  void tearDownStarted() {
    started.forEach(ServerProcess::teardown);
  }

  private ServerProcess start(String script, String... settings) throws SessionException {
    SessionSettings s = PreflightHarness.sessionSettings(settings);
    ServerProcess p = ServerProcess.start(h.shServer("edge", script), s, ServerProcess.mapper(s), "edge");
    started.add(p);
    return p;
  }

  /** Every event up to and including the first {@link Eof} or {@link Fatal}. */
  private static List<Event> events(ServerProcess p) throws InterruptedException {
    List<Event> out = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      Optional<Event> e = p.next(deadline);
      assertTrue(e.isPresent(), "no end of stdout within 20 s, after " + out);
      out.add(e.get());
      if (!(e.get() instanceof Message)) {
        return out;
      }
    }
  }

  /** Reads to the end of stdout and waits for the process to exit, so that {@code exit()} finds its status. */
  private static List<Event> eventsAndExit(ServerProcess p) throws InterruptedException {
    List<Event> out = events(p);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (p.alive() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    return out;
  }

  private static long messages(List<Event> events) {
    return events.stream().filter(e -> e instanceof Message).count();
  }

  private static Event last(List<Event> events) {
    return events.get(events.size() - 1);
  }

  /** Every event of {@code p}, which must be exactly {@code expected} messages and then a plain end of stdout. */
  private static List<Event> readToEnd(long expected, ServerProcess p) throws InterruptedException {
    List<Event> read = events(p);
    assertEquals(expected, messages(read), read.toString());
    assertInstanceOf(Eof.class, last(read));
    return read;
  }

  /**
   * Kills {@code readStdout} with {@code ++count > maxMessages} changed to {@code >=}, and
   * {@code isBlank} returning false or with any of its three conditions negated: three messages
   * under a bound of three, with blank lines (spaces, a tab, a carriage return) between them that
   * count for nothing; a fourth is one too many.
   */
  @Test
  void exactlyTheMessageBoundIsReadAndBlankLinesDoNotCount() throws Exception {
    String three = "printf '{\"a\":1}\\n\\n   \\n{\"a\":2}\\n\\t\\r\\n{\"a\":3}\\n'";
    List<Event> read = readToEnd(3, start(three, PreflightSettings.MAX_MESSAGES, "3", PreflightSettings.MAX_NON_JSON_LINES, "0"));
    assertEquals(Map.of("a", 3), ((Message) read.get(2)).json());

    List<Event> four = events(start(three + "; printf '{\"a\":4}\\n'", PreflightSettings.MAX_MESSAGES, "3"));
    assertEquals(3, messages(four), four.toString());
    assertEquals(new Fatal("wrote more than 3 messages"), last(four));
  }

  /**
   * Kills {@code readStdout} with {@code ++nonJson > maxNonJsonLines} changed to {@code >=}: a
   * line that is not JSON and one that is JSON but not an object are skipped up to the bound, and
   * the next one ends the reading.
   */
  @Test
  void exactlyTheNonJsonLineBoundIsSkippedAndOneMoreEndsTheReading() throws Exception {
    String two = "printf 'not json\\n[1,2]\\n{\"a\":1}\\n'";
    readToEnd(1, start(two, PreflightSettings.MAX_NON_JSON_LINES, "2"));

    List<Event> three = events(start("printf 'not json\\n[1,2]\\n\"text\"\\n{\"a\":1}\\n'",
        PreflightSettings.MAX_NON_JSON_LINES, "2"));
    assertEquals(List.of(new Fatal("wrote more than 2 lines that are not JSON-RPC to stdout")), three);
  }

  /**
   * Kills {@code readStdout} with {@code totalBytes > maxTotalBytes} changed to {@code >=}:
   * sixteen bytes of output under a bound of sixteen are read whole, under fifteen they are not.
   */
  @Test
  void exactlyTheTotalByteBoundIsReadAndOneByteLessEndsTheReading() throws Exception {
    String sixteen = "printf '{\"a\":1}\\n{\"a\":2}\\n'";
    readToEnd(2, start(sixteen, PreflightSettings.MAX_TOTAL_BYTES, "16"));

    List<Event> over = events(start(sixteen, PreflightSettings.MAX_TOTAL_BYTES, "15"));
    assertEquals(new Fatal("wrote more than 15 bytes to stdout"), last(over));
  }

  /**
   * Kills the {@code StreamConstraintsException} handler of {@code readStdout} removed (the line
   * would be skipped as not JSON): JSON one level deeper than the bound ends the reading, JSON at
   * the bound is a message; and a line longer than its bound ends it too.
   */
  @Test
  void jsonDeeperThanItsBoundAndALineLongerThanItsBoundEndTheReading() throws Exception {
    List<Event> atBound = events(start("printf '{\"a\":{\"b\":1}}\\n'", PreflightSettings.MAX_DEPTH, "2"));
    assertEquals(1, messages(atBound), atBound.toString());

    List<Event> deeper = events(start("printf '{\"a\":{\"b\":{\"c\":1}}}\\n{\"a\":1}\\n'", PreflightSettings.MAX_DEPTH, "2"));
    assertEquals(List.of(new Fatal("sent JSON beyond the bounds (nesting deeper than 2 or a value too long)")), deeper);

    List<Event> longLine = events(start("printf '{\"a\":\"0123456789\"}\\n'", PreflightSettings.MAX_LINE_BYTES, "10"));
    assertEquals(List.of(new Fatal("wrote a stdout line longer than 10 bytes")), longLine);
  }

  /**
   * Kills the arithmetic of {@code drainStderr} that keeps the last 2 KiB across reads (either
   * {@code Math.min} bound, either copy's offset) and {@code stderrLastLine} with its blank-line
   * skip negated: a short line, a 1,500-byte one and a 1,000-byte one written with pauses between
   * them (so the drainer reads them one by one), then blank lines; the last line is the whole
   * 1,000-byte one.
   */
  @Test
  void theStderrTailKeepsTheLastLineWholeAcrossReads() throws Exception {
    ServerProcess p = start("printf 'early\\n' >&2; sleep 0.2;"
        + " head -c 1500 /dev/zero | tr '\\0' a >&2; printf '\\n' >&2; sleep 0.2;"
        + " head -c 1000 /dev/zero | tr '\\0' b >&2; printf '\\n \\n\\n' >&2; exit 3");
    eventsAndExit(p);
    Exit exit = p.exit();
    assertEquals("exited 3", exit.how());
    assertEquals("b".repeat(1000), exit.stderr());
  }

  /**
   * Kills the branch of {@code drainStderr} for one read of at least 2 KiB with its offset
   * {@code n - STDERR_TAIL} changed: 3,000 bytes and a last line written at once keep the last
   * line.
   */
  @Test
  void oneLongWriteToStderrKeepsItsLastLine() throws Exception {
    String text = "c".repeat(3000) + "\\nthe last line\\n";
    ServerProcess p = start("printf '" + text + "' >&2; exit 1");
    eventsAndExit(p);
    assertEquals("the last line", p.exit().stderr());
  }

  /**
   * Kills {@code Exit.failure} with {@code !stderr.isEmpty()} negated: a server that said nothing
   * is reported without a colon, one that did is quoted, escaped and cut to 160 characters.
   */
  @Test
  void aFailureQuotesTheLastStderrLineOnlyWhenThereIsOne() throws Exception {
    ServerProcess silent = start("exit 0");
    eventsAndExit(silent);
    assertEquals("exited 0 before answering", silent.exited("before answering").getMessage());

    String line = "d".repeat(300);
    ServerProcess talking = start("printf '" + line + "\\n' >&2; exit 1");
    eventsAndExit(talking);
    SessionException failure = talking.exited("before answering");
    assertEquals(SessionException.Kind.EXITED, failure.kind());
    assertEquals("exited 1 before answering: " + LogSafe.escape(line, 160), failure.getMessage());
    assertTrue(failure.getMessage().length() < 200, failure.getMessage());
  }

  /**
   * Kills {@code send} with its {@code IOException} handler reporting anything but how the
   * process ended: writing to a server that has exited names its exit.
   */
  @Test
  void writingToAServerThatHasExitedNamesItsExit() throws Exception {
    ServerProcess p = start("exec 0<&-; exit 4");
    eventsAndExit(p);
    SessionException e = assertThrows(SessionException.class, () -> {
      for (int i = 0; i < 100; i++) { // the first writes may land in the pipe before it closes
        p.send(Map.of("jsonrpc", "2.0", "method", "ping", "id", i), "before answering ping");
      }
    });
    assertEquals("exited 4 before answering ping", e.getMessage());
  }

  /**
   * A message several times {@link ServerProcess#WRITE_PIECE} long, and one a byte past a whole
   * number of pieces, reach the server whole and in order (it echoes each line). Mutants: the
   * last piece's length, the offset's step.
   */
  @Test
  void aMessageWrittenInPiecesArrivesWhole() throws Exception {
    ServerProcess p = start("exec cat");
    String first = "a".repeat(5 * ServerProcess.WRITE_PIECE);
    String second = "b".repeat(3 * ServerProcess.WRITE_PIECE + 1);
    p.send(Map.of("jsonrpc", "2.0", "method", "first", "params", Map.of("text", first)), "before reading first");
    p.send(Map.of("jsonrpc", "2.0", "method", "second", "params", Map.of("text", second)), "before reading second");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    for (String text : List.of(first, second)) {
      Optional<Event> e = p.next(deadline);
      assertTrue(e.isPresent(), "the echo did not come back");
      Message m = assertInstanceOf(Message.class, e.get());
      assertEquals(text, ((Map<?, ?>) m.json().get("params")).get("text"));
    }
  }

  /**
   * Kills {@code exit} reporting "exited" for a process that has not, and {@code daemon} without
   * {@code setDaemon}: a server that closed its stdout but keeps running is reported as having
   * closed stdout, its stderr reader does not hold the JVM, and teardown ends it.
   */
  @Test
  void aServerThatClosedStdoutButRunsIsReportedSo() throws Exception {
    ServerProcess p = start("exec 1>&-; sleep 30");
    assertInstanceOf(Eof.class, last(events(p)));
    assertEquals("closed stdout", p.exit().how());
    assertTrue(p.alive());
    // stderr is still open: its reader runs, and must not keep this JVM from exiting.
    List<Thread> readers = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("cotenant-session-stderr-edge")).toList();
    assertTrue(!readers.isEmpty() && readers.stream().allMatch(Thread::isDaemon), readers.toString());
    p.teardown();
    assertEquals(List.of(), p.liveProcesses());
  }

  // Teardown: each server below leaves behind, unless teardown does its part, a process the
  // harness finds (by its recorded pid or the environment entry it inherited) and fails on.

  /** A {@code sh -c} command that records its pid, ignores SIGTERM and sleeps; {@code env} runs before it. */
  private static String stubborn(String env) {
    return env + " sh -c 'echo $$ >> \"$COTENANT_TEST_PIDS\"; trap \"\" TERM; exec sleep 1000'";
  }

  private void awaitRecorded(int pids) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (h.recordedPids().size() < pids) {
      assertTrue(System.nanoTime() < deadline, "the server did not start its processes: " + h.recordedPids());
      Thread.sleep(10);
    }
  }

  private Path done() {
    return Path.of(h.marker().substring(h.marker().indexOf('=') + 1) + ".done");
  }

  /**
   * Starts {@code script}, tears it down once its shell runs, and says whether the script got as
   * far as writing {@code $COTENANT_TEST_PIDS.done}. (The scripts write it as
   * {@code ${COTENANT_TEST_PIDS:?}.done}: under a mutant that loses the description's environment
   * they fail instead of writing {@code .done} into the working directory.)
   */
  private boolean finishedBeforeTeardownEnded(String script, String... settings) throws Exception {
    ServerProcess p = start(script, settings);
    awaitRecorded(1);
    p.teardown();
    return Files.exists(done());
  }

  /**
   * Kills {@code next} with {@code deadlineNanos - System.nanoTime()} changed to an addition
   * (it would wait for ever), {@code pid} returning 0, {@code teardown} without {@code kill}, and
   * teardown's last {@code if (interrupted)} negated (an uninterrupted caller would come back
   * interrupted): a server that ignores both its closed stdin and SIGTERM is killed.
   */
  @Test
  void aServerIgnoringItsClosedStdinAndSigtermIsKilled() throws Exception {
    ServerProcess p = start("trap '' TERM; exec sleep 1000");
    awaitRecorded(1);
    assertEquals(h.recordedPids().get(0), p.pid());
    assertEquals(Optional.empty(), p.next(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50)));
    assertEquals(Optional.empty(), p.next(System.nanoTime() - 1));
    assertEquals(List.of(p.pid()), p.liveProcesses().stream().map(ProcessHandle::pid).toList());
    p.teardown();
    assertTrue(!Thread.interrupted(), "an uninterrupted teardown left the thread interrupted");
    assertEquals(List.of(), p.liveProcesses());
  }

  /**
   * Kills {@code teardown} without its first {@code remember}, and {@code remember} with
   * {@code !process.isAlive()} negated or without adding the descendants: a child started without
   * any environment (so without the spawn's cookie) is the server's descendant only until the
   * server exits on its closed stdin; only the look at the tree taken before stdin closes finds it.
   */
  @Test
  void aChildWithoutTheCookieIsEndedBecauseItWasSeenBeforeStdinClosed() throws Exception {
    ServerProcess p = start(stubborn("env -i COTENANT_TEST_PIDS=\"$COTENANT_TEST_PIDS\"") + " & cat");
    awaitRecorded(2);
    p.teardown();
  }

  /**
   * Kills {@code start} without {@code SpawnCookie.addTo}: a grandchild in a session of its own,
   * reparented at once, is found only by the cookie it inherited.
   */
  @Test
  void aGrandchildThatLeftTheTreeIsFoundByItsCookie() throws Exception {
    ServerProcess p = start("setsid -f " + stubborn("") + "; exec cat");
    awaitRecorded(2);
    p.teardown();
  }

  /**
   * Kills {@code start} without {@code SpawnCookie.addTo} for a child that no look at the tree
   * can see: the server starts it once its stdin closed and exits 0.2 s later, during the
   * stdin-close wait, so the child is reparented before the second look. Only the cookie finds it.
   */
  @Test
  void aChildStartedWhenStdinClosesIsFoundByItsCookie() throws Exception {
    ServerProcess p = start("cat; " + stubborn("") + " & sleep 0.2", PreflightSettings.STDIN_CLOSE_WAIT_MS, "10000");
    awaitRecorded(1);
    p.teardown();
    h.assertRecordedAtLeast(2);
  }

  /**
   * Kills {@code teardown} without {@code stdin.close()}, the first {@code if (!interrupted)}
   * negated, {@code waitGone}'s deadline computed with a subtraction or its result replaced, and
   * {@code pollGone} with its liveness filter negated: a server that exits 0.3 s after its stdin
   * closed gets the time to finish before any signal.
   */
  @Test
  void aServerIsGivenTheStdinCloseWaitToExitOnItsOwn() throws Exception {
    assertTrue(finishedBeforeTeardownEnded("cat; sleep 0.3; echo clean > \"${COTENANT_TEST_PIDS:?}.done\"",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "20000", PreflightSettings.TERM_WAIT_MS, "0"),
        "the server was signalled before it could exit on its own");
    assertTrue(!Thread.interrupted());
  }

  /**
   * Kills {@code teardown} with {@code !alive.isEmpty()} or its second {@code if (!interrupted)}
   * negated, and {@code signalCarriers} with {@code force} negated (SIGKILL where SIGTERM is
   * due): a server that cleans up for 0.3 s on SIGTERM gets the time to, before SIGKILL.
   */
  @Test
  void aServerIsGivenTheTermWaitToCleanUp() throws Exception {
    assertTrue(finishedBeforeTeardownEnded(
        "trap 'sleep 0.3; echo term > \"${COTENANT_TEST_PIDS:?}.done\"; exit 0' TERM; sleep 1000 & wait",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "0", PreflightSettings.TERM_WAIT_MS, "20000"),
        "the server was killed before it could clean up on SIGTERM");
  }

  /**
   * Kills {@code teardown} with {@code Thread.interrupted()} not taken into account (the waits
   * would run) and without restoring the interrupt: an interrupted caller skips straight to
   * SIGKILL, leaves nothing running, and is still interrupted afterwards.
   */
  @Test
  void anInterruptedTeardownSkipsTheWaitsAndKeepsTheInterrupt() throws Exception {
    ServerProcess p = start("cat; sleep 2; echo clean > \"${COTENANT_TEST_PIDS:?}.done\"",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "20000", PreflightSettings.TERM_WAIT_MS, "20000");
    awaitRecorded(1);
    Thread.currentThread().interrupt();
    p.teardown();
    assertTrue(Thread.interrupted(), "the interrupt was lost");
    assertEquals(List.of(), p.liveProcesses());
    assertTrue(!Files.exists(done()), "the waits ran although the caller was interrupted");
  }

  /**
   * Kills {@code kill}'s sweep loop with its counters or conditions changed (two empty scans in
   * a row end it, {@code MAX_SWEEPS} bounds it): a process outside the tree that replaces itself
   * every 10 ms and ignores SIGTERM is caught; it gives up by itself after 3,000 hops.
   */
  @Test
  void aProcessOutsideTheTreeThatKeepsReplacingItselfIsCaught() throws Exception {
    String hop = "trap \"\" TERM; n=${HOPS:-0}; [ \"$n\" -ge 3000 ] && exit 0;"
        + " [ \"$n\" -eq 0 ] && echo $$ >> \"$COTENANT_TEST_PIDS\";"
        + " export HOPS=$((n+1)); sleep 0.01; sh -c \"$HOP\" &";
    ServerProcess p = start("export HOP=" + PreflightHarness.shQuote(hop) + "; (sh -c \"$HOP\" &); exec cat");
    awaitRecorded(2);
    p.teardown();
    assertEquals(List.of(), dev.cotenant.testkit.process.EnvironmentScan.carriers(h.marker()),
        "a hopper outlived the teardown");
  }

  /**
   * Kills {@code send} without either write (the message, or the newline that ends it), and
   * {@code next} returning empty once its deadline has passed although a message is waiting: a
   * server that echoes the first line it reads sends back what was written.
   */
  @Test
  void aMessageIsWrittenAsOneLineAndAWaitingAnswerIsTakenAfterTheDeadline() throws Exception {
    ServerProcess p = start("exec head -n 1");
    Map<String, Object> ping = Map.of("jsonrpc", "2.0", "id", 7, "method", "ping");
    p.send(ping, "before answering ping");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    Optional<Event> e = Optional.empty();
    while (e.isEmpty() && System.nanoTime() < deadline) {
      e = p.next(System.nanoTime() - 1);
      Thread.sleep(5);
    }
    assertEquals(Optional.of(new Message(ping)), e);
  }

  /**
   * Kills {@code exit} without either of its two {@code interrupt()} calls: a caller interrupted
   * while waiting for the exit status of a server that is still running gets "closed stdout" and
   * stays interrupted.
   */
  @Test
  void anInterruptedCallerOfExitStaysInterrupted() throws Exception {
    ServerProcess p = start("exec sleep 1000");
    Thread.currentThread().interrupt();
    Exit exit = p.exit();
    assertTrue(Thread.interrupted(), "the interrupt was lost");
    assertEquals("closed stdout", exit.how());
  }

  /**
   * Kills {@code waitGone} returning true and {@code pollGone}'s interruptible return negated or
   * replaced: an interrupt that arrives while teardown waits for the server to exit on its closed
   * stdin ends that wait and every later one (the test would wait a minute for each otherwise),
   * and the thread is interrupted afterwards.
   */
  @Test
  void anInterruptDuringTheStdinCloseWaitEndsTheWaitsAndIsKept() throws Exception {
    ServerProcess p = start("trap '' TERM; exec sleep 1000",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "60000", PreflightSettings.TERM_WAIT_MS, "60000");
    awaitRecorded(1);
    boolean[] interruptedAfter = new boolean[1];
    Thread t = new Thread(() -> {
      p.teardown();
      interruptedAfter[0] = Thread.interrupted();
    }, "teardown");
    t.start();
    // Interrupt only once teardown sleeps in the stdin-close wait (the first wait it makes): an
    // interrupt before it would skip the waits without the wait ever taking it.
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertEquals(Thread.State.TIMED_WAITING, t.getState(), "teardown never waited");
    t.interrupt();
    t.join(TimeUnit.SECONDS.toMillis(30));
    assertTrue(!t.isAlive(), "teardown kept waiting after the interrupt");
    assertTrue(interruptedAfter[0], "the interrupt was lost");
    assertEquals(List.of(), p.liveProcesses());
  }

  /**
   * An interrupted caller of {@code kill} still waits for the killed process to vanish, and stays
   * interrupted. Kills {@code kill} without its closing {@code interrupt()}, with {@code |=}
   * changed to {@code &=}, and {@code pollGone} returning true when uninterruptible, whenever the
   * killed process is still there at the wait's first look, so that the wait sleeps and takes the
   * interrupt: under a mutation run's load it is; on an idle machine the process is often reaped
   * first, the interrupt is never taken, and these mutants pass.
   */
  @Test
  void anInterruptedKillStillKillsAndKeepsTheInterrupt() throws Exception {
    ServerProcess p = start("exec sleep 1000");
    awaitRecorded(1);
    Thread.currentThread().interrupt();
    p.kill();
    assertTrue(Thread.interrupted(), "the interrupt was lost");
    assertEquals(List.of(), p.liveProcesses());
  }

  /**
   * Kills {@code kill} without its {@code remember} and with its deadline computed by a
   * subtraction (it would not wait): {@code kill} on its own, as an abort uses it, ends a child
   * without the cookie too, and everything is gone when it returns.
   */
  @Test
  void killOnItsOwnEndsADescendantWithoutTheCookieAndWaitsForIt() throws Exception {
    ServerProcess p = start(stubborn("env -i COTENANT_TEST_PIDS=\"$COTENANT_TEST_PIDS\"") + " & exec sleep 1000");
    awaitRecorded(2);
    ProcessHandle child = ProcessHandle.of(h.recordedPids().get(1)).orElseThrow();
    p.kill();
    assertEquals(List.of(), p.liveProcesses());
    // A zombie counts as gone: it runs nothing, and whoever it was reparented to reaps it.
    assertTrue(ProcTable.stat(child.pid()).map(ProcTable.Stat::gone).orElse(true),
        "the child was still running when kill returned");
  }

  /**
   * Kills {@code teardown} without its second {@code remember}: once its stdin closed, the server
   * starts a child without the cookie and then drops the cookie itself (so the sweep, which also
   * finds the descendants of every carrier, finds neither). Only the look at the tree taken after
   * the stdin-close wait, while the server still runs, sees the child; SIGTERM then ends the
   * server and the child is reparented.
   */
  @Test
  void aChildWithoutTheCookieStartedWhenStdinClosesIsSeenByTheSecondLook() throws Exception {
    ServerProcess p = start("cat; " + stubborn("env -i COTENANT_TEST_PIDS=\"$COTENANT_TEST_PIDS\"")
        + " & exec env -i sleep 1000", PreflightSettings.STDIN_CLOSE_WAIT_MS, "2000");
    awaitRecorded(1);
    p.teardown();
    h.assertRecordedAtLeast(2);
  }

  /**
   * Kills {@code start} with {@code !dir.isDirectory()} negated, and without
   * {@code pb.directory(dir)}: a missing working directory is a start failure naming it, an
   * existing one is where the server runs.
   */
  @Test
  void aMissingWorkingDirectoryIsAStartFailureNamingIt() throws Exception {
    SessionSettings s = PreflightHarness.sessionSettings();
    Path missing = dir.resolve("not-there");
    SessionException e = assertThrows(SessionException.class, () -> ServerProcess.start(
        h.shServer("edge", "exit 0").withCwd(Optional.of(missing.toString())), s, ServerProcess.mapper(s), "edge"));
    assertEquals(SessionException.Kind.START, e.kind());
    assertEquals("working directory not found: " + missing, e.getMessage());
    ServerProcess p = ServerProcess.start(h.shServer("edge", "printf '{\"cwd\":\"%s\"}\\n' \"$(pwd -P)\"")
        .withCwd(Optional.of(dir.toString())), s, ServerProcess.mapper(s), "edge");
    started.add(p);
    assertEquals(new Message(Map.of("cwd", dir.toRealPath().toString())), events(p).get(0));
  }
}
