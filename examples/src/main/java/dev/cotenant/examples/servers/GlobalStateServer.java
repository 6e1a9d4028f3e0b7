package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;

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

  /** The state every session on this process shares: one scope for all of them. */
  private static final Targets TARGETS = new Targets();
  private static final String EVERY_SESSION = "";

  private GlobalStateServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, GlobalStateServer::setTarget, GlobalStateServer::getTarget,
        GlobalStateServer::remember);
  }

  private static SyncToolSpecification setTarget() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("set_target", "Sets the current target.", List.of("target"), List.of("workspace")),
        (exchange, request) -> StdioServerHost.withString(request, "target", target -> {
          TARGETS.set(EVERY_SESSION, target);
          return StdioServerHost.text("target set to " + target);
        }));
  }

  private static SyncToolSpecification getTarget() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("get_target", "Returns the current target.", List.of(), List.of("workspace")),
        (exchange, request) -> TARGETS.current(EVERY_SESSION));
  }

  private static SyncToolSpecification remember() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("remember",
            "Sets the current target, waits briefly, and returns the target now held and the one replaced.",
            List.of("target"), List.of("workspace")),
        (exchange, request) -> StdioServerHost.withString(request, "target",
            target -> TARGETS.remember(EVERY_SESSION, target)));
  }
}
