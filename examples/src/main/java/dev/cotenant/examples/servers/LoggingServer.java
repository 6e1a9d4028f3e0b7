package dev.cotenant.examples.servers;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;

/**
 * A stateless server that advertises the {@code logging} capability. Logging is per session in
 * the protocol: {@code logging/setLevel} from one session changes what every co-tenant on a
 * shared process receives, and log notifications cannot be attributed to one caller. Sharing it
 * is possible but degrades, which Cotenant reports as a note, never as a reason to refuse.
 *
 * <p>Tool {@code echo_logged} returns its {@code text} argument and sends it as an
 * {@code info} log notification too.
 */
public final class LoggingServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-logging";

  private LoggingServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    McpSchema.ServerCapabilities capabilities = McpSchema.ServerCapabilities.builder().tools(false).logging().build();
    StdioServerHost.run(NAME, capabilities, (spec, caller) -> spec
        .tools(StdioServerHost.tool(
            StdioServerHost.stringTool("echo_logged",
                "Returns the text argument and also sends it as an info log notification.",
                List.of("text"), List.of("workspace")),
            (exchange, request) -> StdioServerHost.withString(request, "text", text -> {
              exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder()
                  .level(McpSchema.LoggingLevel.INFO)
                  .logger(NAME)
                  .data(text)
                  .build());
              return StdioServerHost.text(text);
            })))
        .build());
  }
}
