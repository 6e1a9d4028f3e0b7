package dev.cotenant.testkit.process;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The processes this JVM had started at one moment ({@link Processes#ours()}: its running
 * descendants and the processes carrying its cookie), so that what was started afterwards can be
 * named. Immutable and thread-safe.
 */
public final class ProcessSnapshot {
  private final Set<String> keys;

  private ProcessSnapshot(Set<String> keys) {
    this.keys = keys;
  }

  /** The processes this JVM has started that run now. */
  public static ProcessSnapshot take() {
    Set<String> keys = new TreeSet<>();
    for (ProcessHandle h : Processes.ours()) {
      keys.add(Processes.key(h));
    }
    return new ProcessSnapshot(keys);
  }

  /** The processes of this JVM that run now and did not run when this snapshot was taken. */
  public List<ProcessHandle> startedSince() {
    List<ProcessHandle> out = new ArrayList<>();
    for (ProcessHandle h : Processes.ours()) {
      if (!keys.contains(Processes.key(h))) {
        out.add(h);
      }
    }
    return out;
  }

  /** How many processes ran when the snapshot was taken. */
  public int size() {
    return keys.size();
  }
}
