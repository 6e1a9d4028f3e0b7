package dev.cotenant.cli;

import dev.cotenant.cli.daemon.CotenantHome;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import tools.jackson.core.JacksonException;

/**
 * {@code cotenant dashboard}: prints the address of the running daemon's dashboard,
 * {@code http://127.0.0.1:PORT/#token=TOKEN}, the port from {@code daemon.json} and the token from
 * {@code api-token} in the Cotenant home. The token travels in the URL fragment, which a browser
 * never sends to the server; the page keeps it for the tab only. Exit status 0 when it printed
 * the address, {@value StatusCommand#EXIT_NOT_RUNNING} when no daemon runs, it serves no HTTP, or
 * its token cannot be read.
 */
@Command(name = "dashboard", description = "Print the address of the Cotenant daemon's dashboard "
    + "(http://127.0.0.1:PORT/#token=...); open it in a browser. The address carries the token: keep it to yourself.")
public final class DashboardCommand extends CliCommand {
  /** For picocli. */
  public DashboardCommand() {}

  @Override
  public Integer call() throws Exception {
    CliContext ctx = context();
    CotenantHome home = cotenantHome();
    Optional<Map<String, Object>> status = askDaemon(home, "status", " (start one: cotenant serve)");
    if (status.isEmpty()) {
      return StatusCommand.EXIT_NOT_RUNNING;
    }
    Optional<Integer> port = status.get().get("port") instanceof Number n ? Optional.of(n.intValue()) : Optional.empty();
    if (port.isEmpty()) {
      ctx.err().println("cotenant: the daemon (pid " + status.get().get("pid") + ") of " + home.dir()
          + " serves no HTTP; restart it without --no-http");
      return StatusCommand.EXIT_NOT_RUNNING;
    }
    String token;
    try {
      token = Files.readString(home.token()).strip();
    } catch (IOException e) {
      ctx.err().println("cotenant: cannot read the dashboard's token " + home.token() + ": " + e.getMessage());
      return StatusCommand.EXIT_NOT_RUNNING;
    }
    if (token.isEmpty()) {
      ctx.err().println("cotenant: the token file " + home.token() + " is empty; restart the daemon to create one");
      return StatusCommand.EXIT_NOT_RUNNING;
    }
    ctx.out().println(url(port.get(), token));
    return Cli.EXIT_OK;
  }

  /** The dashboard's address for {@code port} and {@code token}. */
  static String url(int port, String token) {
    return "http://127.0.0.1:" + port + "/#token=" + token;
  }
}
