package dev.cotenant.cli;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;

/**
 * {@code cotenant stop}: asks the daemon of the Cotenant home to stop (every session ends, every
 * backend drains) and waits until its process has exited. Exit status 0 once it has,
 * {@value StatusCommand#EXIT_NOT_RUNNING} when no daemon runs.
 */
@Command(name = "stop", description = "Stop the Cotenant daemon of this home: every session ends, every backend drains.")
public final class StopCommand extends CliCommand {
  /** How long it waits for the daemon's process to exit. */
  static final Duration WAIT = Duration.ofSeconds(60);

  /** For picocli. */
  public StopCommand() {}

  @Override
  public Integer call() throws Exception {
    return withDaemonAnswer(cotenantHome(), "stop", "", this::awaitExit);
  }

  /** Waits for the daemon that answered {@code answer} to stop to exit. */
  private int awaitExit(Map<String, Object> answer) throws Exception {
    CliContext ctx = context();
    Object pid = answer.get("pid");
    Optional<ProcessHandle> p = pid instanceof Number ? ProcessHandle.of(((Number) pid).longValue()) : Optional.empty();
    if (p.isPresent()) {
      try {
        p.get().onExit().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        ctx.err().println("cotenant: daemon " + pid + " is still draining after " + WAIT.toSeconds() + " s");
        return Cli.EXIT_INTERNAL;
      }
    }
    ctx.err().println("cotenant: daemon " + pid + " stopped");
    return Cli.EXIT_OK;
  }
}
