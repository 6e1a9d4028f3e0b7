package dev.cotenant.cli;

import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.daemon.Connect;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant connect NAME [CONFIG...]}: the stdio shim an MCP client's configuration points
 * at. It reaches the daemon of the Cotenant home (starting one when none runs) and relays the
 * client's session of server {@code NAME} to it; see {@link Connect}. The jar's main class takes a
 * faster path to the same code for the usual arguments.
 * Standard output carries MCP messages only.
 */
@Command(
    name = "connect",
    description = "Relay an MCP client's stdio session of server NAME to the Cotenant daemon, starting the "
        + "daemon when none runs. Point a client's config at it (see `cotenant route`).")
public final class ConnectCommand extends CliCommand {
  @Parameters(index = "0", paramLabel = "NAME", description = "The server's name.")
  String name;

  @Parameters(index = "1..*", paramLabel = "CONFIG",
      description = "Configuration files the daemon reads NAME from first (it also reads its own).")
  List<String> configs = new ArrayList<>();

  @Option(names = "--no-start", description = "Fail instead of starting a daemon when none runs.")
  boolean noStart;

  @Option(names = "--start-only",
      description = "Make sure the daemon runs (starting it when none does) and exit 0 without relaying: "
          + "what the native shim runs when it finds no daemon.")
  boolean startOnly;

  /** For picocli. */
  public ConnectCommand() {}

  @Override
  public Integer call() throws Exception {
    CliContext ctx = context();
    if (name.isBlank()) {
      throw new UsageException("NAME is empty: name a server of the configuration");
    }
    CotenantHome home = cotenantHome();
    List<String> files = new ArrayList<>();
    for (String c : configs) {
      files.add(ctx.resolve(c).toString());
    }
    List<String> serveArgs = new ArrayList<>();
    common.recordsDir().ifPresent(d -> {
      serveArgs.add("--records-dir");
      serveArgs.add(ctx.resolve(d).toString());
    });
    for (String s : common.settings()) {
      serveArgs.add("--set");
      serveArgs.add(s);
    }
    if (startOnly) {
      if (noStart) {
        throw new UsageException("--start-only and --no-start contradict each other: give one");
      }
      return Connect.startOnly(name, serveArgs, home, ctx.env(), ctx.err());
    }
    return Connect.run(name, files, noStart, serveArgs, home, ctx.env(), ctx.err());
  }
}
