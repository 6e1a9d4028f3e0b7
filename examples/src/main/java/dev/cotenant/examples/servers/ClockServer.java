package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.time.Instant;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Stateless, but no two answers are alike: every answer carries the time and a random id.
 * {@code echo} answers {@code <HH:mm:ss.SSS> id=<8 hex digits> echo: <text>}, {@code now}
 * answers {@code <ISO-8601 instant> request <random UUID>}. Nothing is remembered between calls.
 *
 * <p>An answer comparison that treated every difference as a sign of shared state would refute
 * it; one that sets aside what differs between two runs on processes of their own (the clock,
 * the ids) passes it. Both tools are annotated {@code readOnlyHint: true}.
 */
public final class ClockServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-clock";

  /** Local wall-clock time to the millisecond, as {@code echo} prints it. */
  static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private ClockServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, ClockServer::echo, ClockServer::now);
  }

  private static SyncToolSpecification echo() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("echo", "Returns the text argument after the time and a random id.",
            List.of("text"), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.withString(request, "text", text -> StdioServerHost.text(
            LocalTime.now().format(MILLIS) + " id=" + String.format("%08x", ThreadLocalRandom.current().nextInt())
                + " echo: " + text)));
  }

  private static SyncToolSpecification now() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("now", "Returns the current instant and a random request id.",
            List.of(), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.text(Instant.now() + " request " + UUID.randomUUID()));
  }
}
