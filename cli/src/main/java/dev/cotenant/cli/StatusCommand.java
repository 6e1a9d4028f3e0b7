package dev.cotenant.cli;

import dev.cotenant.api.Json;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code cotenant status}: whether a daemon runs for the Cotenant home, and what it shares: one
 * line per backend (server, placement, state, pid, sessions, calls, hazards). Exit status 0 when
 * a daemon runs, {@value #EXIT_NOT_RUNNING} when none does.
 */
@Command(name = "status", description = "Show the Cotenant daemon of this home and every backend it runs: which are "
    + "shared, by how many sessions, and why not when dedicated.")
public final class StatusCommand extends CliCommand {
  /** Exit status when no daemon runs. */
  public static final int EXIT_NOT_RUNNING = 1;

  /** Exit status when a daemon holds the socket but does not answer (stopped with SIGSTOP, hung, another user's). */
  public static final int EXIT_NO_ANSWER = 3;

  /** For picocli. */
  public StatusCommand() {}

  @Override
  public Integer call() throws Exception {
    return withDaemonAnswer(cotenantHome(), "status", " (start one: cotenant serve)", this::show);
  }

  /** Prints the daemon's status {@code s}, as JSON with {@code --json}. */
  private int show(Map<String, Object> s) throws Exception {
    PrintWriter out = context().out();
    if (common.json()) {
      out.println(JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(Json.thaw(s)));
      return Cli.EXIT_OK;
    }
    out.println("daemon " + s.get("pid") + "  socket " + s.get("socket")
        + (s.containsKey("port") ? "  http://127.0.0.1:" + s.get("port") + "/mcp/{server}" : "  (no HTTP)"));
    if (s.get("backends_start") != null) {
      out.println("backends start " + s.get("backends_start"));
    }
    out.println("sessions: " + s.get("socket_sessions") + " over the socket, " + s.get("http_sessions") + " over HTTP");
    List<?> servers = s.get("servers") instanceof List ? (List<?>) s.get("servers") : List.of();
    List<?> waiting = servers.stream().filter(o -> ((Number) ((Map<?, ?>) o).get("waiting")).intValue() > 0).toList();
    if (!waiting.isEmpty()) {
      out.println("waiting on a deferred backend (answered from the records; no process runs for them until their"
          + " first call):");
      for (Object o : waiting) {
        Map<?, ?> m = (Map<?, ?>) o;
        out.printf("  %-24s %d of %d sessions: %s%n", m.get("server"), ((Number) m.get("waiting")).intValue(),
            ((Number) m.get("sessions")).intValue(), m.get("deferred"));
      }
    }
    List<?> eager = servers.stream().filter(o -> !"".equals(((Map<?, ?>) o).get("not_deferred"))).toList();
    if (!eager.isEmpty()) {
      out.println("started at their initialize:");
      for (Object o : eager) {
        Map<?, ?> m = (Map<?, ?>) o;
        out.printf("  %-24s %s%n", m.get("server"), m.get("not_deferred"));
      }
    }
    List<?> backends = s.get("backends") instanceof List ? (List<?>) s.get("backends") : List.of();
    if (backends.isEmpty()) {
      out.println("no backend runs");
      return Cli.EXIT_OK;
    }
    String format = "%-24s %-10s %-9s %-8s %-8s %-7s %-7s %s%n";
    out.printf(format, "SERVER", "PLACEMENT", "STATE", "PID", "SESSIONS", "CALLS", "HAZARDS", "REASON");
    for (Object o : backends) {
      Map<?, ?> b = (Map<?, ?>) o;
      String placement = String.valueOf(b.get("placement")) + (Boolean.TRUE.equals(b.get("forced")) ? "*" : "");
      out.printf(format, b.get("server"), placement, b.get("state"), b.get("pid") == Json.NULL ? "-" : b.get("pid"),
          b.get("sessions"), b.get("calls"), b.get("hazards"), b.get("reason") == null ? "" : b.get("reason"));
    }
    if (backends.stream().anyMatch(o -> Boolean.TRUE.equals(((Map<?, ?>) o).get("forced")))) {
      out.println("* forced by cotenant.sharing.forced, not by the verdict");
    }
    return Cli.EXIT_OK;
  }
}
