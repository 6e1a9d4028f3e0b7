package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;

/**
 * The shareable way to keep state: every stateful tool takes the scope as an argument. Targets
 * are stored per {@code workspace} argument, so two callers using distinct workspaces never see
 * each other's target even on one shared process, and the statelessness probe passes.
 *
 * <p>Same tools as the global-state sample ({@code set_target}, {@code get_target},
 * {@code remember}), but {@code workspace} is required; a call without it is refused rather than
 * answered from a shared default.
 */
public final class WorkspaceKeyedServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-workspace-keyed";

  private static final Targets TARGETS = new Targets();

  private WorkspaceKeyedServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, WorkspaceKeyedServer::setTarget, WorkspaceKeyedServer::getTarget,
        WorkspaceKeyedServer::remember);
  }

  private static SyncToolSpecification setTarget() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("set_target", "Sets the target of one workspace.",
            List.of("workspace", "target"), List.of()),
        (exchange, request) -> StdioServerHost.withStrings(request, "workspace", "target", (workspace, target) -> {
          TARGETS.set(workspace, target);
          return StdioServerHost.text("target of " + workspace + " set to " + target);
        }));
  }

  private static SyncToolSpecification getTarget() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("get_target", "Returns the target of one workspace.",
            List.of("workspace"), List.of()),
        (exchange, request) -> StdioServerHost.withString(request, "workspace", TARGETS::current));
  }

  private static SyncToolSpecification remember() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("remember",
            "Sets the target of one workspace, waits briefly, and returns that workspace's target.",
            List.of("workspace", "target"), List.of()),
        (exchange, request) -> StdioServerHost.withStrings(request, "workspace", "target", TARGETS::remember));
  }
}
