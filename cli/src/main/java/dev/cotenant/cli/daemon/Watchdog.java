package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes backends die with their daemon, however the daemon dies. The daemon runs with
 * {@value #ENV}{@code =<random id>} in its environment, so every backend it spawns, and
 * everything those spawn (including a process that double-forked or called {@code setsid}),
 * inherits it. The watchdog is a small {@code sh} process, started without that variable, whose
 * standard input is a pipe from the daemon that the daemon never writes to. When the daemon
 * exits, even by SIGKILL, the kernel closes the pipe; the watchdog reads end-of-file, finds every
 * process whose {@code /proc/<pid>/environ} holds the daemon's id (one {@code grep} over all of
 * them), sends each SIGKILL, repeats until none is left (at most {@value #ROUNDS} rounds) and
 * exits. On an orderly stop the daemon drains its backends first, so the watchdog finds nothing
 * or a straggler. Linux only ({@code /proc}); elsewhere the backends see their standard input
 * close and exit as MCP servers do.
 */
final class Watchdog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

  /** The environment variable carrying the daemon's id. */
  static final String ENV = "COTENANT_DAEMON_ID";

  static final int ROUNDS = 5;

  /** $1: the id; $2: the daemon's pid, never signalled. */
  static final String SCRIPT =
      "id=$1; daemon=$2\n"
          + "while read -r _; do :; done\n"
          + "i=0\n"
          + "while [ $i -lt " + ROUNDS + " ]; do\n"
          + "  found=\n"
          + "  for f in $(grep -l -s -z -x -F \"" + ENV + "=$id\" /proc/[0-9]*/environ); do\n"
          + "    p=${f#/proc/}; p=${p%/environ}\n"
          + "    if [ \"$p\" != \"$$\" ] && [ \"$p\" != \"$daemon\" ]; then kill -KILL \"$p\" 2>/dev/null && found=1; fi\n"
          + "  done\n"
          + "  [ -z \"$found\" ] && break\n"
          + "  i=$((i + 1))\n"
          + "done\n";

  private final Process process;
  private final OutputStream pipe;

  private Watchdog(Process process) {
    this.process = process;
    this.pipe = process.getOutputStream();
  }

  /** Starts the watchdog of the daemon whose id is {@code id}, or explains in the log why it could not. */
  static java.util.Optional<Watchdog> start(String id) {
    if (!java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self"))) {
      LOG.info("no /proc here: backends rely on their standard input closing when the daemon dies");
      return java.util.Optional.empty();
    }
    ProcessBuilder pb = new ProcessBuilder(List.of("/bin/sh", "-c", SCRIPT, "cotenant-watchdog", id,
        Long.toString(ProcessHandle.current().pid())));
    pb.environment().remove(ENV);
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    try {
      return java.util.Optional.of(new Watchdog(pb.start()));
    } catch (IOException e) {
      LOG.warn("the watchdog could not start ({}): backends of a daemon killed with SIGKILL may outlive it", e.getMessage());
      return java.util.Optional.empty();
    }
  }

  /** The watchdog's pid. */
  long pid() {
    return process.pid();
  }

  /** Closes the pipe, so the watchdog sweeps, and waits (up to 5 s) for it to finish. */
  @Override
  public void close() {
    try {
      pipe.close();
    } catch (IOException e) {
      // Closed already.
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
