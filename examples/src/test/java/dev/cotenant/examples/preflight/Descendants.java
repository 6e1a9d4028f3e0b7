package dev.cotenant.examples.preflight;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The processes this JVM started (descendants at any depth) after a snapshot, so that a test can
 * prove it left none alive.
 */
final class Descendants {

  private final Set<Long> before;

  private Descendants(Set<Long> before) {
    this.before = before;
  }

  /** Remembers every descendant alive now; only later ones are checked. */
  static Descendants snapshot() {
    return new Descendants(ProcessHandle.current().descendants()
        .map(ProcessHandle::pid)
        .collect(Collectors.toUnmodifiableSet()));
  }

  /**
   * Polls until no descendant started since the snapshot is alive, waiting on their exits for at
   * most {@code bound} in all. Whatever is still alive then is killed (so that a failing test
   * leaks nothing either) and described.
   *
   * @return one line ({@code pid command}) per process that survived the bound; empty when none did
   */
  List<String> survivors(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      List<ProcessHandle> alive = newAndAlive();
      if (alive.isEmpty()) {
        return List.of();
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return killAndDescribe(alive);
      }
      try {
        alive.get(0).onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // Looked at again on the next round, and reported once the bound has passed.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return killAndDescribe(newAndAlive());
      }
    }
  }

  private List<ProcessHandle> newAndAlive() {
    return ProcessHandle.current().descendants()
        .filter(handle -> !before.contains(handle.pid()))
        .filter(ProcessHandle::isAlive)
        .toList();
  }

  private static List<String> killAndDescribe(List<ProcessHandle> alive) {
    List<String> described = new ArrayList<>();
    for (ProcessHandle handle : alive) {
      described.add(handle.pid() + " " + handle.info().commandLine().orElse("(command unknown)"));
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      handle.destroyForcibly();
    }
    return described;
  }
}
