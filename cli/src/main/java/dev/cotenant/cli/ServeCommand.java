package dev.cotenant.cli;

import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.daemon.Daemon;
import dev.cotenant.cli.daemon.DaemonLock;
import dev.cotenant.cli.daemon.DaemonStarter;
import dev.cotenant.cli.daemon.ServerDirectory;
import dev.cotenant.gateway.config.DefaultConfigLocations;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant serve [CONFIG...]}: the daemon, in the foreground until SIGTERM or SIGINT (or,
 * with {@code --detach}, started in the background). Sharing is on in the daemon unless
 * {@code --set cotenant.sharing.enabled=false}. See {@link Daemon} and {@code docs/daemon.md}.
 */
@Command(
    name = "serve",
    description = "Run the Cotenant daemon: MCP clients reach shared backends through `cotenant connect NAME` "
        + "(Unix socket cotenant.sock in $COTENANT_HOME, else ~/.cotenant) or Streamable HTTP at "
        + "http://127.0.0.1:PORT/mcp/NAME. Runs until SIGTERM or SIGINT, which drain every backend.")
public final class ServeCommand extends CliCommand {
  /** Exit status when the daemon cannot start (another holds the home, the port is taken). */
  public static final int EXIT_UNAVAILABLE = 1;

  /**
   * What the daemon sets before the operator's {@code --set}s (which win): sharing on (that is what
   * it is for); room for 256 live backends (five clients of fifty unshared servers). A backend's
   * output is bounded by the session transport's own settings ({@code cotenant.session.*}), made
   * for a process that lives for days: no count or total-bytes bound, one message up to 32 MiB (as
   * the shims' socket carries); the pre-flight keeps its tight bounds for its own processes.
   */
  static final List<String> DAEMON_DEFAULTS = List.of(
      "cotenant.sharing.enabled=true",
      "cotenant.pool.spawn-budget=256");

  @Parameters(paramLabel = "CONFIG", arity = "0..*",
      description = "MCP configuration files the servers are read from (default: every usual location that exists); "
          + "a shim may name more.")
  List<String> configs = new ArrayList<>();

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "" + Daemon.DEFAULT_PORT,
      description = "The HTTP port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0: any free port, written to daemon.json).")
  int port;

  @Option(names = "--no-http", description = "Serve the Unix socket only.")
  boolean noHttp;

  @Option(names = "--detach", description = "Start the daemon in the background, wait until it answers, and exit.")
  boolean detach;

  /** For picocli. */
  public ServeCommand() {}

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65_535) {
      throw new UsageException("--port " + port + ": give a port from 0 to 65535");
    }
    CliContext ctx = context();
    CotenantHome home = cotenantHome();
    List<Path> files = configFiles(ctx);
    if (detach) {
      return detach(ctx, home, files);
    }
    // Defaults of the daemon; a --set of the same key, later in the list, wins.
    common.settings.addAll(0, DAEMON_DEFAULTS);
    CliRuntime runtime = runtime();
    if (!files.isEmpty()) {
      runtime.readConfigs(files.stream().map(Path::toString).toList());
    }
    String id = ctx.env().get("COTENANT_DAEMON_ID");
    if (id == null || id.isBlank()) {
      return underWatch(ctx);
    }
    boolean portChosen = spec.commandLine().getParseResult().hasMatchedOption("--port");
    Daemon daemon = new Daemon(home, runtime.cotenant(), new ServerDirectory(files), noHttp ? -1 : port, id, portChosen);
    // Set once this method is about to return its own status: the JVM then exits with it and the
    // hook below does nothing. Until then, a SIGTERM or SIGINT stops the daemon through the hook.
    java.util.concurrent.atomic.AtomicBoolean returning = new java.util.concurrent.atomic.AtomicBoolean();
    Thread hook = new Thread(() -> {
      if (returning.get()) {
        return;
      }
      daemon.stop();
      // Stopped cleanly by a signal: exit 0, not the JVM's 128+signal. Nothing else is left to run
      // (the daemon has drained its backends and written what it observed).
      System.err.flush();
      Runtime.getRuntime().halt(Cli.EXIT_OK);
    }, "cotenant-daemon-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      daemon.start();
    } catch (DaemonLock.HeldException e) {
      returning.set(true);
      ctx.err().println("cotenant: " + e.getMessage());
      return EXIT_UNAVAILABLE;
    } catch (IOException e) {
      returning.set(true);
      ctx.err().println("cotenant: the daemon cannot start: " + e.getMessage());
      return EXIT_UNAVAILABLE;
    }
    ctx.err().println("cotenant: daemon " + ProcessHandle.current().pid() + " serving " + home.socket()
        + daemon.httpPort().map(p -> " and http://127.0.0.1:" + p + "/mcp/{server}").orElse("")
        + "; stop it with SIGTERM or Ctrl-C");
    ctx.err().flush();
    daemon.awaitStop();
    returning.set(true);
    return Cli.EXIT_OK;
  }

  private List<Path> configFiles(CliContext ctx) {
    List<Path> files = new ArrayList<>();
    if (configs.isEmpty()) {
      for (Path p : DefaultConfigLocations.candidates(ctx.workingDirectory(), ctx.home())) {
        if (Files.isRegularFile(p)) {
          files.add(p.toAbsolutePath().normalize());
        }
      }
    } else {
      for (String c : configs) {
        files.add(ctx.resolve(c));
      }
    }
    return files;
  }

  /** The arguments a daemon started in the background gets: the same options, absolute paths. */
  private List<String> serveArgs(CliContext ctx, List<Path> files) {
    List<String> args = new ArrayList<>();
    common.recordsDir().ifPresent(d -> {
      args.add("--records-dir");
      args.add(ctx.resolve(d).toString());
    });
    for (String s : common.settings()) {
      args.add("--set");
      args.add(s);
    }
    if (noHttp) {
      args.add("--no-http");
    } else if (spec.commandLine().getParseResult().hasMatchedOption("--port")) {
      args.add("--port");
      args.add(Integer.toString(port));
    }
    files.forEach(f -> args.add(f.toString()));
    return args;
  }

  private int detach(CliContext ctx, CotenantHome home, List<Path> files) throws Exception {
    DaemonStarter starter = new DaemonStarter(home, serveArgs(ctx, files), ctx.env());
    Optional<SocketChannel> running = DaemonStarter.tryConnect(home.socket());
    if (running.isPresent()) {
      running.get().close();
      ctx.err().println("cotenant: a daemon already runs for " + home.dir()
          + DaemonLock.holder(home.lock()).stream().mapToObj(p -> " (pid " + p + ")").findFirst().orElse(""));
      return EXIT_UNAVAILABLE;
    }
    home.ensure();
    Process p = starter.spawn();
    try (SocketChannel ch = starter.await(p)) {
      ctx.err().println("cotenant: daemon " + p.pid() + " serving " + home.socket() + " (log: " + home.log() + ")");
      return Cli.EXIT_OK;
    } catch (DaemonStarter.UnreachableException e) {
      ctx.err().println("cotenant: " + e.getMessage());
      return EXIT_UNAVAILABLE;
    }
  }

  /**
   * Runs the daemon as a child carrying a fresh {@code COTENANT_DAEMON_ID}, so that its watchdog
   * can find every process it spawns; this process waits for it and passes SIGTERM/SIGINT on.
   */
  private int underWatch(CliContext ctx) throws Exception {
    List<String> cmd = new ArrayList<>(DaemonStarter.javaCommand());
    cmd.add("serve");
    cmd.addAll(serveArgs(ctx, configFiles(ctx)));
    if (common.debug()) {
      cmd.add("--debug");
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
    pb.environment().clear();
    pb.environment().putAll(ctx.env());
    pb.environment().put("COTENANT_DAEMON_ID", DaemonStarter.newDaemonId());
    pb.directory(ctx.workingDirectory().toFile());
    Process child = pb.start();
    Thread hook = new Thread(() -> {
      child.destroy();
      try {
        // The daemon's own status (0 after a clean stop), not the JVM's 128+signal.
        Runtime.getRuntime().halt(child.waitFor());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "cotenant-serve-forward");
    Runtime.getRuntime().addShutdownHook(hook);
    int status = child.waitFor();
    return status;
  }
}
