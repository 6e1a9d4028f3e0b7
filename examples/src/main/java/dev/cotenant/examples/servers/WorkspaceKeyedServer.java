package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

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

  private static final ConcurrentMap<String, String> TARGETS = new ConcurrentHashMap<>();

  private WorkspaceKeyedServer() {}

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
        .tool(StdioServerHost.stringTool("set_target", "Sets the target of one workspace.",
            List.of("workspace", "target"), List.of()))
        .callHandler((exchange, request) -> {
          var workspace = StdioServerHost.stringArgument(request, "workspace");
          var target = StdioServerHost.stringArgument(request, "target");
          if (workspace.isEmpty() || target.isEmpty()) {
            return StdioServerHost.error("set_target needs string arguments 'workspace' and 'target'");
          }
          TARGETS.put(workspace.get(), target.get());
          return StdioServerHost.text("target of " + workspace.get() + " set to " + target.get());
        })
        .build();
  }

  private static SyncToolSpecification getTarget() {
    return SyncToolSpecification.builder()
        .tool(StdioServerHost.stringTool("get_target", "Returns the target of one workspace.",
            List.of("workspace"), List.of()))
        .callHandler((exchange, request) -> StdioServerHost.stringArgument(request, "workspace")
            .map(workspace -> StdioServerHost.text("current target: " + TARGETS.getOrDefault(workspace, "")))
            .orElseGet(() -> StdioServerHost.error("get_target needs a string argument 'workspace'")))
        .build();
  }

  private static SyncToolSpecification remember() {
    return SyncToolSpecification.builder()
        .tool(StdioServerHost.stringTool("remember",
            "Sets the target of one workspace, waits briefly, and returns that workspace's target.",
            List.of("workspace", "target"), List.of()))
        .callHandler((exchange, request) -> {
          var workspace = StdioServerHost.stringArgument(request, "workspace");
          var target = StdioServerHost.stringArgument(request, "target");
          if (workspace.isEmpty() || target.isEmpty()) {
            return StdioServerHost.error("remember needs string arguments 'workspace' and 'target'");
          }
          String previous = TARGETS.put(workspace.get(), target.get());
          StdioServerHost.stateDelay();
          return StdioServerHost.text("current target: " + TARGETS.get(workspace.get())
              + "; previous target: " + (previous == null ? "" : previous));
        })
        .build();
  }
}
