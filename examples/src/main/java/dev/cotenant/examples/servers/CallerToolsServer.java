package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A server whose tool list depends on who asked: {@code echo} is always listed, {@code list_roots}
 * only to a client that declared the {@code roots} capability, {@code summarize} only to one that
 * declared {@code sampling}, and {@code confirm} only to one that declared {@code elicitation}.
 *
 * <p>Each process serves one client, so this is correct 1:1. A pooled backend replays the first
 * client's {@code tools/list} answer to every later session, which then sees tools it cannot use
 * or misses tools it could. A pre-flight with two differently-declaring callers sees the
 * {@code tools} facet diverge.
 */
public final class CallerToolsServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-caller-tools";

  /** Which client capability makes which tool visible. */
  static final Map<String, String> TOOL_REQUIRES = Map.of(
      "list_roots", "roots",
      "summarize", "sampling",
      "confirm", "elicitation");

  private CallerToolsServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.run(NAME, StdioServerHost.toolsOnly(), (spec, caller) -> spec
        .addToolFilter((context, tool) -> visibleTo(caller.get(), tool.name()))
        .tools(EchoServer.echoTool(), listRoots(), summarize(), confirm())
        .build());
  }

  /**
   * Whether a tool is listed to a client.
   *
   * @param client what the client declared
   * @param toolName the tool
   * @return true for unconditional tools, and for conditional ones when the client declared the
   *     capability the tool needs
   */
  static boolean visibleTo(ClientHandshake client, String toolName) {
    String needed = TOOL_REQUIRES.get(toolName);
    return needed == null || client.declares(needed);
  }

  private static SyncToolSpecification listRoots() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("list_roots", "Lists the roots the client exposes.", List.of(), List.of()),
        (exchange, request) -> {
          Set<String> uris = exchange.listRoots().roots().stream()
              .map(McpSchema.Root::uri)
              .collect(Collectors.toCollection(TreeSet::new));
          return StdioServerHost.text("roots: " + String.join(", ", uris));
        });
  }

  private static SyncToolSpecification summarize() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("summarize", "Asks the client's model to summarize a text.",
            List.of("text"), List.of()),
        (exchange, request) -> StdioServerHost.withString(request, "text", text -> {
          McpSchema.CreateMessageResult answer = exchange.createMessage(McpSchema.CreateMessageRequest.builder()
              .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
                  new McpSchema.TextContent("Summarize: " + text))))
              .maxTokens(200)
              .build());
          return StdioServerHost.text(answer.content() instanceof McpSchema.TextContent t
              ? t.text() : "(non-text answer)");
        }));
  }

  private static SyncToolSpecification confirm() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("confirm", "Asks the user to confirm a question.",
            List.of("question"), List.of()),
        (exchange, request) -> StdioServerHost.withString(request, "question", question -> {
          McpSchema.ElicitResult answer = exchange.createElicitation(McpSchema.ElicitRequest.builder()
              .message(question)
              .requestedSchema(Map.of("type", "object",
                  "properties", Map.of("ok", Map.of("type", "boolean"))))
              .build());
          return StdioServerHost.text("answer: " + answer.action());
        }));
  }
}
