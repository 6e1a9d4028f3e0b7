package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;

/**
 * A stateless echo server: the tool {@code echo} returns its {@code text} argument verbatim and
 * remembers nothing. Its handshake is the same for every caller and no call can see another's
 * argument, so a pre-flight measures it and a statelessness probe passes.
 *
 * <p>The optional {@code workspace} argument is accepted and ignored, so a probe template such as
 * {@code {"text":"{marker}","workspace":"{workspace}"}} works unchanged.
 */
public final class EchoServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-echo";

  private EchoServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, EchoServer::echoTool);
  }

  /**
   * The stateless {@code echo} tool, shared by other samples that also offer it.
   *
   * @return the tool and its handler
   */
  static SyncToolSpecification echoTool() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("echo", "Returns the text argument verbatim.", List.of("text"), List.of("workspace")),
        (exchange, request) -> StdioServerHost.withString(request, "text", StdioServerHost::text));
  }
}
