package dev.cotenant.testkit.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The leak check itself, run on small test classes through the Jupiter engine: a test that leaves
 * a process fails naming it, and the process is killed; one that left the tree is found by the
 * cookie in its environment; a process that exits within the wait, or that ran before the test,
 * is not blamed. With {@link Processes}' parts on real processes: a zombie is not running, a tree
 * is killed, an environment entry is matched whole. Every process started here is ended by the
 * test that started it.
 */
class NoLeftoverProcessesTest {
  /** Pids the fixtures started, for the test that ran them to check and clean up. */
  static final List<Long> STARTED = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final List<Process> mine = new ArrayList<>();

  @AfterEach
  void endEverything() throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>();
    for (long pid : STARTED) {
      ProcessHandle.of(pid).ifPresent(all::add);
    }
    for (Process p : mine) {
      all.add(p.toHandle());
    }
    Processes.killTrees(all);
    assertEquals(List.of(), Processes.awaitExit(all, Duration.ofSeconds(10)), "a process of this test outlived it");
    STARTED.clear();
  }

  private static Process sleep(String seconds) throws IOException {
    Process p = new ProcessBuilder("sleep", seconds).start();
    STARTED.add(p.pid());
    return p;
  }

  private static EngineExecutionResults run(Class<?> fixture) {
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(fixture)).execute();
  }

  private static Optional<Throwable> failure(EngineExecutionResults results) {
    List<Event> failed = results.testEvents().failed().list();
    return failed.isEmpty() ? Optional.empty()
        : failed.get(0).getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(Processes::running).orElse(false);
  }

  @ChecksProcessLeaks(waitMillis = 300)
  static class LeavesAChild {
    @Test
    void leaves() throws IOException {
      sleep("301");
    }
  }

  /**
   * Mutants: the snapshot's comparison, {@code key} answering "" (every process one key, so
   * nothing was new once any process ran before the test), {@code awaitExit} answering none, the
   * kill removed, and the failure's text.
   */
  @Test
  void aTestThatLeavesAProcessFailsNamingItAndTheProcessIsKilled() throws Exception {
    // A process that ran before the test: the leftover is told apart from it by its key.
    mine.add(new ProcessBuilder("sleep", "300").start());
    EngineExecutionResults results = run(LeavesAChild.class);
    Throwable why = failure(results).orElseThrow(() -> new AssertionError("the leaking test passed"));
    long pid = STARTED.get(0);
    assertTrue(why instanceof AssertionError, why.toString());
    assertTrue(why.getMessage().startsWith("leaves() left 1 process(es) running 300 ms after it ended (now killed): pid "
        + pid + ": "), why.getMessage());
    assertTrue(why.getMessage().contains("sleep 301"), why.getMessage());
    assertFalse(alive(pid), "the leftover was killed");
  }

  @ChecksProcessLeaks(waitMillis = 300)
  static class LeavesAnOrphan {
    @Test
    void leavesAnOrphan() throws Exception {
      ProcessBuilder b = new ProcessBuilder("sh", "-c", "sleep 302 </dev/null >/dev/null 2>&1 & echo $!");
      b.environment().put(Processes.COOKIE_ENV, Processes.cookie());
      Process shell = b.start();
      String pid = new String(shell.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      STARTED.add(Long.parseLong(pid));
      assertTrue(shell.waitFor(10, TimeUnit.SECONDS));
      assertFalse(ProcessHandle.current().descendants().anyMatch(h -> h.pid() == Long.parseLong(pid)),
          "the sleep left this JVM's tree");
    }
  }

  /**
   * A process whose parent exited has left this JVM's tree; it carries the cookie and is found.
   * Mutants: {@code ours} without the marked processes, {@code marked} finding none, and the
   * environment match.
   */
  @Test
  void aProcessThatLeftTheTreeIsFoundByItsCookie() throws Exception {
    EngineExecutionResults results = run(LeavesAnOrphan.class);
    long pid = STARTED.get(0);
    Throwable why = failure(results).orElseThrow(() -> new AssertionError("the leaking test passed"));
    assertTrue(why.getMessage().matches(".*pid " + pid + ": \\S*sleep 302"), why.getMessage());
    assertFalse(alive(pid), "the orphan was killed");
  }

  @ChecksProcessLeaks(waitMillis = 20_000)
  static class LeavesAProcessThatExitsSoon {
    @Test
    void leavesOneThatExits() throws IOException {
      sleep("0.3");
    }
  }

  /** A process that exits within the wait is no leak. Mutant: the wait made no wait. */
  @Test
  void aProcessThatExitsWithinTheWaitIsNoLeak() {
    EngineExecutionResults results = run(LeavesAProcessThatExitsSoon.class);
    assertEquals(Optional.empty(), failure(results).map(Throwable::toString));
    assertEquals(1, results.testEvents().succeeded().count());
  }

  @ChecksProcessLeaks(waitMillis = 300)
  static class StartsNothing {
    @Test
    void nothing() {}
  }

  /** What ran before the test is not blamed on it, nor killed. */
  @Test
  void aProcessThatRanBeforeTheTestIsNotBlamed() throws Exception {
    Process before = sleep("303");
    mine.add(before);
    EngineExecutionResults results = run(StartsNothing.class);
    assertEquals(Optional.empty(), failure(results).map(Throwable::toString));
    assertTrue(alive(before.pid()), "left alone");
  }

  @ChecksProcessLeaks(waitMillis = 20_000)
  static class MethodWaitsLess {
    @Test
    @ChecksProcessLeaks(waitMillis = 200)
    void leaves() throws IOException {
      sleep("304");
    }
  }

  /** The method's own wait overrides its class's. Mutant: the class's wait read first. */
  @Test
  void aMethodsWaitOverridesItsClasss() {
    Throwable why = failure(run(MethodWaitsLess.class)).orElseThrow();
    assertTrue(why.getMessage().contains("running 200 ms after it ended"), why.getMessage());
  }

  /**
   * A zombie (a process that exited and was not reaped) is alive to {@link ProcessHandle} and not
   * running. The shell starts a child that exits at once and then becomes a {@code sleep}, which
   * never reaps it. Mutants: {@code running}'s state checks.
   */
  @Test
  void aZombieIsNotRunning() throws Exception {
    Process parent = new ProcessBuilder("sh", "-c", "sleep 0 & exec sleep 305").start();
    mine.add(parent);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    ProcessHandle zombie = null;
    while (zombie == null) {
      assertTrue(System.nanoTime() < deadline, "no zombie appeared");
      Optional<ProcessHandle> child = parent.toHandle().children().findFirst();
      if (child.isPresent() && child.get().isAlive() && !Processes.running(child.get())) {
        zombie = child.get();
      }
      Thread.sleep(20);
    }
    assertTrue(zombie.isAlive(), "alive to the JDK");
    assertFalse(Processes.running(zombie));
    assertTrue(Processes.running(parent.toHandle()));
    assertEquals(List.of(), Processes.awaitExit(List.of(zombie), Duration.ofMillis(1)), "gone to the wait");
    assertFalse(Processes.descendants().contains(zombie), "not one of the running descendants");
  }

  /** {@code killTrees} kills a process and its descendants. Mutant: the descendants' kill removed. */
  @Test
  void killTreesKillsEveryDescendant() throws Exception {
    Process parent = new ProcessBuilder("sh", "-c", "sleep 306 & sleep 307; wait").start();
    mine.add(parent);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (parent.toHandle().children().count() < 2) {
      assertTrue(System.nanoTime() < deadline, "the children did not start");
      Thread.sleep(20);
    }
    List<ProcessHandle> children = parent.toHandle().children().toList();
    Processes.killTrees(List.of(parent.toHandle()));
    List<ProcessHandle> all = new ArrayList<>(children);
    all.add(parent.toHandle());
    assertEquals(List.of(), Processes.awaitExit(all, Duration.ofSeconds(10)));
  }

  /** {@code awaitExit} answers what still runs once the time is up. */
  @Test
  void awaitExitAnswersWhatStillRuns() throws Exception {
    Process running = sleep("308");
    mine.add(running);
    assertEquals(List.of(running.toHandle()), Processes.awaitExit(List.of(running.toHandle()), Duration.ofMillis(50)));
  }

  /**
   * An environment entry is matched whole, at any place. Mutants: {@code containsEntry}'s
   * bounds and separator checks.
   */
  @Test
  void anEnvironmentEntryIsMatchedWhole() {
    byte[] entry = "A=1".getBytes(StandardCharsets.US_ASCII);
    assertTrue(Processes.containsEntry(env("A=1"), entry));
    assertTrue(Processes.containsEntry(env("B=2", "A=1"), entry));
    assertTrue(Processes.containsEntry(env("A=1", "B=2"), entry));
    assertTrue(Processes.containsEntry(env("B=2", "A=1", "C=3"), entry));
    assertTrue(Processes.containsEntry("B=2\0A=1\0".getBytes(StandardCharsets.US_ASCII), entry), "with the final NUL");
    assertFalse(Processes.containsEntry(env("A=12"), entry), "a longer value");
    assertFalse(Processes.containsEntry(env("XA=1"), entry), "a longer name");
    assertFalse(Processes.containsEntry(env("B=XA=1"), entry), "inside another entry");
    assertFalse(Processes.containsEntry(env("A="), entry), "cut short");
    assertFalse(Processes.containsEntry(new byte[0], entry));
  }

  private static byte[] env(String... entries) {
    return String.join("\0", entries).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A shell that waits on a {@code sleep} (the {@code :} after it keeps the shell from becoming
   * the sleep), with {@code marker} and {@code pad} as its arguments: a long command line that
   * stays up, since {@code sleep} itself exits at once on an argument it cannot read.
   */
  private static Process showing(String marker, String pad) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", "sleep 310; :", marker, pad).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    // Its sleep started too: a tree killed before the shell forks could leave the sleep behind.
    while (!p.toHandle().info().commandLine().orElse("").contains(marker) || p.toHandle().children().count() != 1) {
      assertTrue(p.isAlive(), "the shell exited");
      assertTrue(System.nanoTime() < deadline, "the command line never showed");
      Thread.sleep(20);
    }
    return p;
  }

  /**
   * A command line of exactly 400 characters is shown whole. Mutant: the cut's bound at
   * {@code >=}.
   */
  @Test
  void aCommandLineOfExactly400CharactersIsShownWhole() throws Exception {
    Process probe = showing("marker-400", "x");
    mine.add(probe);
    int prefix = probe.toHandle().info().commandLine().orElseThrow().length() - 1;
    Process p = showing("marker-400", "x".repeat(400 - prefix));
    mine.add(p);
    String d = Processes.describe(p.toHandle());
    assertEquals(("pid " + p.pid() + ": ").length() + 400, d.length(), d);
    assertTrue(d.endsWith("x"), d);
  }

  /** A long command line is cut at 400 characters. */
  @Test
  void aLongCommandLineIsCut() throws Exception {
    Process p = showing("marker-long", "x".repeat(500));
    mine.add(p);
    String d = Processes.describe(p.toHandle());
    assertTrue(d.startsWith("pid " + p.pid() + ": "), d);
    assertEquals(("pid " + p.pid() + ": ").length() + 400 + 3, d.length(), d);
    assertTrue(d.endsWith("x..."), d);
  }

  /**
   * {@code EnvironmentScan.carriers} with a wait polls until the carriers are gone, and answers
   * them when the wait ends first. Mutant: its deadline check negated.
   */
  @Test
  void environmentScanWaitsForCarriersToGo() throws Exception {
    String entry = "COTENANT_SCAN_TEST=" + System.nanoTime();
    ProcessBuilder b = new ProcessBuilder("sleep", "311");
    b.environment().put("COTENANT_SCAN_TEST", entry.substring(entry.indexOf('=') + 1));
    Process p = b.start();
    mine.add(p);
    assertEquals(List.of(p.pid()), EnvironmentScan.carriers(entry));
    assertEquals(List.of(p.pid()), EnvironmentScan.carriers(entry, 0), "no wait: the carriers now");
    // Killed while the scan waits: the scan sees it go.
    Thread killer = new Thread(() -> {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      p.destroyForcibly();
    });
    killer.start();
    assertEquals(List.of(), EnvironmentScan.carriers(entry, 60_000), "the carrier ends within the wait");
    killer.join();
  }
}
