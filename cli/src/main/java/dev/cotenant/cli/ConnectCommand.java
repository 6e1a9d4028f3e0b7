package dev.cotenant.cli;

import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.daemon.DaemonStarter;
import dev.cotenant.cli.daemon.Shim;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cotenant connect NAME [CONFIG...]}: the stdio shim an MCP client's configuration points
 * at. It reaches the daemon of the Cotenant home (starting one when none runs) and relays the
 * client's session of server {@code NAME} to it; see {@link Shim} and {@link DaemonStarter}.
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

  /** For picocli. */
  public ConnectCommand() {}

  @Override
  public Integer call() throws Exception {
    CliContext ctx = context();
    if (name.isBlank()) {
      throw new UsageException("NAME is empty: name a server of the configuration");
    }
    CotenantHome home = CotenantHome.resolve(ctx.env(), ctx.home());
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
    DaemonStarter starter = new DaemonStarter(home, serveArgs, ctx.env());
    SocketChannel socket;
    try {
      if (noStart) {
        Optional<SocketChannel> ch = DaemonStarter.tryConnect(home.socket());
        if (ch.isEmpty()) {
          ctx.err().println("cotenant connect " + name + ": no daemon runs for " + home.dir()
              + " (start one: cotenant serve)");
          return Shim.EXIT_DAEMON;
        }
        socket = ch.get();
      } else {
        socket = starter.connectOrStart();
      }
    } catch (DaemonStarter.UnreachableException e) {
      ctx.err().println("cotenant connect " + name + ": " + e.getMessage());
      return Shim.EXIT_DAEMON;
    }
    OutputStream out = new FileOutputStream(FileDescriptor.out);
    try (socket) {
      return new Shim(name, files, new FileInputStream(FileDescriptor.in), out, ctx.err()).run(socket);
    }
  }
}
