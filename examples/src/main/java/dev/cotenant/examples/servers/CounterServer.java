package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Process-global state that never echoes what a caller sent: the tools take no arguments, so
 * the state shows only as an answer that changed. {@code next} answers {@code calls=N}, N
 * counting the calls every session on this process has made; {@code toggle} flips one
 * process-global switch and answers {@code on} or {@code off}.
 *
 * <p>A marker-based probe has nothing to look for here. Comparing answers does: on a process
 * shared with a caller who went first, the second caller's first {@code next} answers
 * {@code calls=2} where a process of its own answers {@code calls=1}. Both tools are annotated
 * {@code readOnlyHint: false}, {@code destructiveHint: false}.
 */
public final class CounterServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-counter";

  /** Calls of {@code next} since the process started, by every session. */
  private static final AtomicInteger CALLS = new AtomicInteger();

  /** The switch {@code toggle} flips; off when the process starts. */
  private static final AtomicBoolean ON = new AtomicBoolean();

  private CounterServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, CounterServer::next, CounterServer::toggle);
  }

  private static SyncToolSpecification next() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("next", "Counts this call and returns calls=N, the calls made so far.",
            List.of(), List.of(), StdioServerHost.writeHints(false)),
        (exchange, request) -> StdioServerHost.text("calls=" + CALLS.incrementAndGet()));
  }

  private static SyncToolSpecification toggle() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("toggle", "Flips the switch and returns its new position, on or off.",
            List.of(), List.of(), StdioServerHost.writeHints(false)),
        (exchange, request) -> StdioServerHost.text(flip() ? "on" : "off"));
  }

  /** Flips {@link #ON} and returns the new position. */
  private static boolean flip() {
    boolean was;
    do {
      was = ON.get();
    } while (!ON.compareAndSet(was, !was));
    return !was;
  }
}
