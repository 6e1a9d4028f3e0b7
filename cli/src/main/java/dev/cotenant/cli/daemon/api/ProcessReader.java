package dev.cotenant.cli.daemon.api;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code GET /api/backends} reads of the machine's processes: Linux's {@code /proc}
 * ({@link #PROC}), or made-up processes in tests. Implementations are thread-safe.
 */
interface ProcessReader {
  /** The machine's processes, from {@code /proc}. */
  ProcessReader PROC = new ProcessReader() {
    private final Path proc = Path.of("/proc");

    @Override
    public Optional<ProcessMemory> memory(long pid) {
      return ProcessMemory.read(proc, pid);
    }

    @Override
    public Map<Long, List<Long>> children() {
      Map<Long, List<Long>> out = new HashMap<>();
      ProcessHandle.allProcesses().forEach(p -> p.parent()
          .ifPresent(parent -> out.computeIfAbsent(parent.pid(), k -> new ArrayList<>()).add(p.pid())));
      out.values().forEach(l -> l.sort(null));
      return out;
    }

    @Override
    public boolean alive(long pid) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  };

  /** The memory of process {@code pid}; empty when it cannot be read (gone, or another user's). */
  Optional<ProcessMemory> memory(long pid);

  /** The children of every process that has some, by the parent's pid, read once. */
  Map<Long, List<Long>> children();

  /**
   * Whether {@code pid} is a live process: one whose memory cannot be read is counted as unread
   * while it lives, and as nothing once it has ended.
   */
  boolean alive(long pid);
}
