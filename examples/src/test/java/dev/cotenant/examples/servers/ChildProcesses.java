package dev.cotenant.examples.servers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The processes this JVM started after a snapshot, descendants included, so that a test can
 * prove it left none alive.
 */
final class ChildProcesses {

  private final Set<Long> before;

  private ChildProcesses(Set<Long> before) {
    this.before = before;
  }

  /** Remembers the descendants alive now; only later ones are checked. */
  static ChildProcesses snapshot() {
    return new ChildProcesses(ProcessHandle.current().descendants()
        .map(ProcessHandle::pid)
        .collect(Collectors.toUnmodifiableSet()));
  }

  /**
   * Waits, up to {@code bound} for each, for every descendant started since the snapshot to exit.
   * One still alive after that is killed (so that a failing test leaks nothing either) and
   * reported.
   *
   * @param bound how long each straggler may take to exit on its own
   * @return a description of every process that had to be killed; empty when all exited
   */
  List<String> awaitNoneLeft(Duration bound) {
    List<String> stragglers = new ArrayList<>();
    List<ProcessHandle> started = ProcessHandle.current().descendants()
        .filter(handle -> !before.contains(handle.pid()))
        .toList();
    for (ProcessHandle handle : started) {
      if (!exitsWithin(handle, bound)) {
        stragglers.add(handle.pid() + " " + handle.info().commandLine().orElse("(command unknown)"));
        handle.descendants().forEach(ProcessHandle::destroyForcibly);
        handle.destroyForcibly();
        exitsWithin(handle, bound);
      }
    }
    return stragglers;
  }

  private static boolean exitsWithin(ProcessHandle handle, Duration bound) {
    try {
      handle.onExit().get(bound.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !handle.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !handle.isAlive();
    }
  }
}
