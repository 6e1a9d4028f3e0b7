package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * A server written for a pooled backend: it advertises the caller-identity extension
 * ({@code capabilities.experimental["cotenant.caller-identity"]}) and scopes every answer by the
 * caller block a gateway injects into each request's {@code _meta["cotenant/caller"]}, an object
 * whose string {@code session} names the calling session (an optional string {@code tenant} is
 * part of the scope too).
 *
 * <p>Its tools mirror the global-state sample ({@code set_target}, {@code get_target},
 * {@code remember}) plus {@code whoami}, but the state is keyed by the caller, so co-tenant
 * sessions never see each other's target. A call without a caller block is refused: answering it
 * from a shared default is the failure the extension exists to prevent.
 */
public final class CallerIdentityServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-caller-identity";

  /** The {@code capabilities.experimental} key this server advertises. */
  public static final String EXTENSION_KEY = "cotenant.caller-identity";

  /** The {@code _meta} key of the per-call caller block. */
  public static final String CALLER_META_KEY = "cotenant/caller";

  private static final Targets TARGETS = new Targets();

  private CallerIdentityServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    McpSchema.ServerCapabilities capabilities = McpSchema.ServerCapabilities.builder()
        .tools(false)
        .experimental(Map.of(EXTENSION_KEY, Map.of("metaKey", CALLER_META_KEY, "version", 1)))
        .build();
    StdioServerHost.run(NAME, capabilities, (spec, caller) -> spec
        .tools(whoami(), setTarget(), getTarget(), remember())
        .build());
  }

  /**
   * The scope named by a request's caller block: {@code tenant/session}, or {@code session} alone
   * when no tenant is given.
   *
   * @param meta the request's {@code _meta}, possibly null
   * @return the scope when the block is present and names a non-blank session
   */
  static Optional<String> callerScope(Map<String, Object> meta) {
    if (meta == null || !(meta.get(CALLER_META_KEY) instanceof Map<?, ?> block)) {
      return Optional.empty();
    }
    if (!(block.get("session") instanceof String session) || session.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(block.get("tenant") instanceof String tenant && !tenant.isBlank()
        ? tenant + "/" + session
        : session);
  }

  private static SyncToolSpecification scoped(McpSchema.Tool tool,
      BiFunction<String, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    return StdioServerHost.tool(tool, (exchange, request) -> callerScope(request.meta())
        .map(scope -> handler.apply(scope, request))
        .orElseGet(() -> StdioServerHost.error(tool.name() + " needs a caller block: _meta[\""
            + CALLER_META_KEY + "\"] = {\"session\": \"...\"}")));
  }

  private static SyncToolSpecification whoami() {
    return scoped(
        StdioServerHost.stringTool("whoami", "Returns the caller this call was made for.", List.of(), List.of()),
        (scope, request) -> StdioServerHost.text("caller: " + scope));
  }

  private static SyncToolSpecification setTarget() {
    return scoped(
        StdioServerHost.stringTool("set_target", "Sets the calling session's target.",
            List.of("target"), List.of("workspace")),
        (scope, request) -> StdioServerHost.withString(request, "target", target -> {
          TARGETS.set(scope, target);
          return StdioServerHost.text("target set to " + target);
        }));
  }

  private static SyncToolSpecification getTarget() {
    return scoped(
        StdioServerHost.stringTool("get_target", "Returns the calling session's target.",
            List.of(), List.of("workspace")),
        (scope, request) -> TARGETS.current(scope));
  }

  private static SyncToolSpecification remember() {
    return scoped(
        StdioServerHost.stringTool("remember",
            "Sets the calling session's target, waits briefly, and returns that session's target.",
            List.of("target"), List.of("workspace")),
        (scope, request) -> StdioServerHost.withString(request, "target", target -> TARGETS.remember(scope, target)));
  }
}
