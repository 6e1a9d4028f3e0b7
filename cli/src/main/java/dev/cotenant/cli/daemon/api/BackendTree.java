package dev.cotenant.cli.daemon.api;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The processes of one backend as read at one moment: the process the pool started (its
 * {@code pid}) and every descendant, each counted once. The top {@code wrappers} levels of the
 * tree are the wrapper the daemon starts the backend in (the bubblewrap pair); the rest is the
 * server, which is what a client running the server itself would start.
 *
 * @param up true when the backend has a process (the pool names a pid)
 * @param processes every process of the tree counted: read, or unread while it lives
 * @param unread processes whose memory could not be read
 * @param all the memory of the processes read, wrappers included
 * @param serverProcesses the processes of the server, below the wrappers, read
 * @param server the memory of the server's processes read, without the wrappers
 */
record BackendTree(boolean up, int processes, int unread, ProcessMemory all, int serverProcesses, ProcessMemory server) {
  /** A backend without a process: one process to come, not read. */
  static final BackendTree DOWN = new BackendTree(false, 1, 1, ProcessMemory.NONE, 0, ProcessMemory.NONE);

  /** True when every process of the tree was read. */
  boolean read() {
    return up && unread == 0;
  }

  /**
   * Reads the tree of the backend whose process is {@code pid} (none: {@link #DOWN}), its top
   * {@code wrappers} levels being the wrapper, with {@code children} the machine's processes'
   * children read once. A process that ended while it was read counts nothing; one that lives but
   * cannot be read is counted unread. The process {@code pid} itself is always counted.
   */
  static BackendTree read(OptionalLong pid, int wrappers, Map<Long, List<Long>> children, ProcessReader reader) {
    if (pid.isEmpty()) {
      return DOWN;
    }
    long root = pid.getAsLong();
    int processes = 0;
    int unread = 0;
    ProcessMemory all = ProcessMemory.NONE;
    int serverProcesses = 0;
    ProcessMemory server = ProcessMemory.NONE;
    Set<Long> seen = new HashSet<>();
    Deque<long[]> next = new ArrayDeque<>();
    next.add(new long[] {root, 0});
    while (!next.isEmpty()) {
      long[] at = next.poll();
      long p = at[0];
      int depth = (int) at[1];
      if (!seen.add(p)) {
        continue;
      }
      Optional<ProcessMemory> m = reader.memory(p);
      if (m.isPresent()) {
        processes++;
        all = all.plus(m.get());
        if (depth >= wrappers) {
          serverProcesses++;
          server = server.plus(m.get());
        }
      } else if (p == root || reader.alive(p)) {
        processes++;
        unread++;
      }
      for (long c : children.getOrDefault(p, List.of())) {
        next.add(new long[] {c, depth + 1});
      }
    }
    return new BackendTree(true, processes, unread, all, serverProcesses, server);
  }
}
