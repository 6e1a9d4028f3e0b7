package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server with one process-global "current target", the pattern that makes a server unsafe to
 * share: {@code set_target} stores it, {@code get_target} reads it, and every session attached
 * to the same process reads whatever the last session stored.
 *
 * <p>Its handshake replays perfectly (a pre-flight measures it), which is exactly why a matching
 * handshake proves determinism and not isolation. The statelessness probe catches it: the tool
 * {@code remember} stores its {@code target}, waits briefly (so that interleaved callers overlap),
 * then answers with the target it now holds and the one it replaced. A second caller on the same
 * process therefore sees the first caller's marker, whether calls run concurrently or in turn.
 */
public final class GlobalStateServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-global-state";

  /** The state every session on this process shares. */
  private static final AtomicReference<String> CURRENT_TARGET = new AtomicReference<>("");

  private GlobalStateServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.run(NAME, StdioServerHost.toolsOnly(), (spec, caller) -> spec
        .tools(setTarget(), getTarget(), remember())
        .build());
  }

  private static SyncToolSpecification setTarget() {
    return SyncToolSpecification.builder()
        .tool(StdioServerHost.stringTool("set_target", "Sets the current target.",
            List.of("target"), List.of("workspace")))
        .callHandler((exchange, request) -> StdioServerHost.stringArgument(request, "target")
            .map(target -> {
              CURRENT_TARGET.set(target);
              return StdioServerHost.text("target set to " + target);
            })
            .orElseGet(() -> StdioServerHost.error("set_target needs a string argument 'target'")))
        .build();
  }

  private static SyncToolSpecification getTarget() {
    return SyncToolSpecification.builder()
        .tool(StdioServerHost.stringTool("get_target", "Returns the current target.",
            List.of(), List.of("workspace")))
        .callHandler((exchange, request) -> StdioServerHost.text("current target: " + CURRENT_TARGET.get()))
        .build();
  }

  private static SyncToolSpecification remember() {
    return SyncToolSpecification.builder()
        .tool(StdioServerHost.stringTool("remember",
            "Sets the current target, waits briefly, and returns the target now held and the one replaced.",
            List.of("target"), List.of("workspace")))
        .callHandler((exchange, request) -> StdioServerHost.stringArgument(request, "target")
            .map(target -> {
              String previous = CURRENT_TARGET.getAndSet(target);
              StdioServerHost.stateDelay();
              return StdioServerHost.text("current target: " + CURRENT_TARGET.get()
                  + "; previous target: " + previous);
            })
            .orElseGet(() -> StdioServerHost.error("remember needs a string argument 'target'")))
        .build();
  }
}
