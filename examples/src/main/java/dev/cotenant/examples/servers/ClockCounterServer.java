package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Process-global state hidden in a field that also carries the time: {@code tick} answers
 * exactly {@code <HH:mm:ss> calls=<N>} in one text block, N counting the calls every session on
 * this process has made; {@code echo} answers {@code <HH:mm:ss> echo: <text>}.
 *
 * <p>The text differs between two runs on processes of their own (the clock), so an answer
 * comparison that sets aside whole fields which differ would set this one aside, counter and
 * all, and miss the shared state. Only a comparison finer than the field (the time differs, the
 * count must not) catches it. {@code tick} is annotated {@code readOnlyHint: false},
 * {@code destructiveHint: false}; {@code echo} {@code readOnlyHint: true}.
 */
public final class ClockCounterServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-clock-counter";

  /** Local wall-clock time to the second, as every answer starts. */
  static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss");

  /** Calls of {@code tick} since the process started, by every session. */
  private static final AtomicInteger CALLS = new AtomicInteger();

  private ClockCounterServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, ClockCounterServer::tick, ClockCounterServer::echo);
  }

  private static SyncToolSpecification tick() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("tick", "Counts this call and returns the time and calls=N, the calls made so far.",
            List.of(), List.of(), StdioServerHost.writeHints(false)),
        (exchange, request) -> StdioServerHost.text(clock() + " calls=" + CALLS.incrementAndGet()));
  }

  private static SyncToolSpecification echo() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("echo", "Returns the text argument after the time.",
            List.of("text"), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.withString(request, "text",
            text -> StdioServerHost.text(clock() + " echo: " + text)));
  }

  private static String clock() {
    return LocalTime.now().format(SECONDS);
  }
}
