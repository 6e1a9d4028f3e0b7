package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One process-wide "current directory", as a shell or a version-control server keeps one:
 * {@code change_directory} sets it to an existing directory ({@code readOnlyHint: false}) and
 * answers {@code now in <directory>}; {@code current_directory} answers it
 * ({@code readOnlyHint: true}). Two sessions on one process share it: the second caller's
 * {@code current_directory} names the directory the first one changed to.
 */
public final class CurrentDirectoryServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-current-directory";

  /** The current directory, for every session on this process; the working directory at start. */
  private static final AtomicReference<Path> CURRENT = new AtomicReference<>(Path.of("").toAbsolutePath());

  private CurrentDirectoryServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, CurrentDirectoryServer::changeDirectory, CurrentDirectoryServer::currentDirectory);
  }

  private static SyncToolSpecification changeDirectory() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("change_directory", "Makes an existing directory the current one.",
            List.of("directory"), List.of(), StdioServerHost.writeHints(false)),
        (exchange, request) -> StdioServerHost.withString(request, "directory", d -> {
          Path dir = Path.of(d).toAbsolutePath().normalize();
          if (!dir.isAbsolute() || !Files.isDirectory(dir)) {
            return StdioServerHost.error("not a directory: " + d);
          }
          CURRENT.set(dir);
          return StdioServerHost.text("now in " + dir);
        }));
  }

  private static SyncToolSpecification currentDirectory() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("current_directory", "Returns the current directory.", List.of(), List.of(),
            StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.text(CURRENT.get().toString()));
  }
}
