package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A server that does, when called, what a probe must never let a server do to an operator: each
 * tool reaches outside the process. It shows what the probe's sandbox contains (see
 * {@code docs/statelessness.md}, "The sandbox").
 *
 * <ul>
 *   <li>{@code delete_precious} ({@code destructiveHint: true}) deletes the file named by the env
 *       variable {@code CANARY_FILE} and answers {@code gone: <path>} (the same whether or not the
 *       file was there);
 *   <li>{@code note_at_home} ({@code readOnlyHint: false}) writes {@code $HOME/cotenant-canary-<name>.txt}
 *       and answers {@code noted <name>};
 *   <li>{@code phone_home} (no annotations) connects to {@code 127.0.0.1:$CANARY_PORT}, writes
 *       one line and answers {@code connected}, or a tool-level error when it cannot connect.
 * </ul>
 *
 * <p>When {@code CANARY_ORPHAN} is set, the server starts at launch a grandchild that leaves its
 * process tree and its environment behind ({@code env -i setsid sh -c 'sleep 600; : <tag>'}),
 * tagged with the variable's value, which no teardown by process tree or environment can find.
 *
 * <p>None of the tools keeps state in the process: whatever they change is outside it.
 */
public final class SandboxCanaryServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-sandbox-canary";

  /** The prefix of every file {@code note_at_home} writes in {@code $HOME}. */
  public static final String NOTE_PREFIX = "cotenant-canary-";

  private SandboxCanaryServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   * @throws IOException when the grandchild asked for cannot be started
   */
  public static void main(String[] args) throws IOException {
    String tag = System.getenv("CANARY_ORPHAN");
    if (tag != null && !tag.isBlank() && tag.matches("[A-Za-z0-9-]+")) {
      new ProcessBuilder("sh", "-c", "env -i setsid sh -c 'sleep 600; : " + tag + "' >/dev/null 2>&1 </dev/null &")
          .inheritIO().start();
    }
    StdioServerHost.runTools(NAME, SandboxCanaryServer::deletePrecious, SandboxCanaryServer::noteAtHome,
        SandboxCanaryServer::phoneHome);
  }

  private static SyncToolSpecification deletePrecious() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("delete_precious", "Deletes the file CANARY_FILE names.", List.of(), List.of(),
            StdioServerHost.writeHints(true)),
        (exchange, request) -> {
          String file = System.getenv("CANARY_FILE");
          if (file == null || file.isBlank()) {
            return StdioServerHost.error("CANARY_FILE is not set");
          }
          try {
            Files.deleteIfExists(Path.of(file));
            return StdioServerHost.text("gone: " + file);
          } catch (IOException e) {
            return StdioServerHost.error("could not delete " + file + ": " + e);
          }
        });
  }

  private static SyncToolSpecification noteAtHome() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("note_at_home", "Writes a note under $HOME named after the name argument.",
            List.of("name"), List.of(), StdioServerHost.writeHints(false)),
        (exchange, request) -> StdioServerHost.withString(request, "name", name -> {
          if (!name.matches("[A-Za-z0-9-]{1,64}")) {
            return StdioServerHost.error("note_at_home refuses name '" + name + "': letters, digits and '-' only");
          }
          String home = System.getenv("HOME");
          if (home == null || home.isBlank()) {
            return StdioServerHost.error("HOME is not set");
          }
          Path note = Path.of(home, NOTE_PREFIX + name + ".txt");
          try {
            Files.writeString(note, name + "\n");
            return StdioServerHost.text("noted " + name);
          } catch (IOException e) {
            return StdioServerHost.error("could not write " + note + ": " + e);
          }
        }));
  }

  private static SyncToolSpecification phoneHome() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("phone_home", "Connects to 127.0.0.1:CANARY_PORT and says hello.", List.of(),
            List.of()),
        (exchange, request) -> {
          String port = System.getenv("CANARY_PORT");
          if (port == null || !port.matches("\\d{1,5}")) {
            return StdioServerHost.error("CANARY_PORT is not a port number");
          }
          try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 2_000);
            OutputStream out = socket.getOutputStream();
            out.write("hello from the canary\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            return StdioServerHost.text("connected");
          } catch (IOException e) {
            return StdioServerHost.error("no connection to 127.0.0.1:" + port + ": " + e.getMessage());
          }
        });
  }
}
