package dev.cotenant.examples.servers;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The state behind the samples whose tools set, read and remember a target: one target per
 * scope. What a scope is (the whole process, a workspace argument, the calling session) is each
 * sample's choice, and the whole difference between a sample that leaks one caller's target into
 * another's answer and one that does not. Thread-safe.
 */
final class Targets {
  private final ConcurrentMap<String, String> byScope = new ConcurrentHashMap<>();

  /** Sets the target of {@code scope}. */
  void set(String scope, String target) {
    byScope.put(scope, target);
  }

  /** {@code current target: <target>}, the target of {@code scope} (empty before one was set). */
  McpSchema.CallToolResult current(String scope) {
    return StdioServerHost.text("current target: " + byScope.getOrDefault(scope, ""));
  }

  /**
   * Sets the target of {@code scope}, waits briefly ({@link StdioServerHost#stateDelay()}) so that
   * interleaved callers overlap, then answers with the target {@code scope} holds now and the one
   * replaced (empty when there was none).
   */
  McpSchema.CallToolResult remember(String scope, String target) {
    String previous = byScope.put(scope, target);
    StdioServerHost.stateDelay();
    return StdioServerHost.text("current target: " + byScope.get(scope)
        + "; previous target: " + (previous == null ? "" : previous));
  }
}
