package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A server with a tool that must not be called just to see what it does. {@code echo} answers
 * {@code echo: <text>} ({@code readOnlyHint: true}); {@code wipe_scratch} deletes the files in
 * one workspace's scratch directory, {@code <java.io.tmpdir>/cotenant-sample-destructive/<workspace>},
 * and answers {@code wiped <n> files in <workspace>} ({@code readOnlyHint: false},
 * {@code destructiveHint: true}).
 *
 * <p>Nothing is shared between callers: each wipes only the workspace it names, and a directory
 * that does not exist has 0 files. A probe that calls every tool leaves {@code wipe_scratch} out
 * unless the operator's plan includes it; with it included, the server passes.
 *
 * <p>A workspace that is blank, {@code .}, or contains {@code /}, {@code \} or {@code ..} is
 * refused with a tool-level error, so no call can reach outside its own directory. Only entries
 * that are not directories are deleted (a symbolic link is removed, never followed);
 * subdirectories are left alone.
 */
public final class DestructiveServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-destructive";

  /** The directory under {@code java.io.tmpdir} that holds one scratch directory per workspace. */
  public static final String SCRATCH_ROOT = "cotenant-sample-destructive";

  private DestructiveServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, DestructiveServer::echo, DestructiveServer::wipeScratch);
  }

  private static SyncToolSpecification echo() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("echo", "Returns the text argument after 'echo: '.",
            List.of("text"), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.withString(request, "text",
            text -> StdioServerHost.text("echo: " + text)));
  }

  private static SyncToolSpecification wipeScratch() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("wipe_scratch",
            "Deletes every file in the workspace's scratch directory and returns how many it deleted.",
            List.of("workspace"), List.of(), StdioServerHost.writeHints(true)),
        (exchange, request) -> StdioServerHost.withString(request, "workspace", DestructiveServer::wipe));
  }

  /**
   * Deletes the files of {@code workspace}'s scratch directory.
   *
   * @param workspace the workspace the caller named
   * @return {@code wiped <n> files in <workspace>}, or a tool-level error for a workspace that
   *     could name another directory, or when deleting failed
   */
  static McpSchema.CallToolResult wipe(String workspace) {
    if (workspace.isBlank() || workspace.equals(".") || workspace.contains("/") || workspace.contains("\\")
        || workspace.contains("..")) {
      return StdioServerHost.error("wipe_scratch refuses workspace '" + workspace
          + "': it must be one directory name, without '/', '\\' or '..'");
    }
    Path directory;
    try {
      directory = scratchDirectory(workspace);
    } catch (InvalidPathException e) {
      return StdioServerHost.error("wipe_scratch refuses workspace '" + workspace + "': " + e.getReason());
    }
    int wiped = 0;
    try (Stream<Path> entries = Files.list(directory)) {
      for (Path entry : entries.toList()) {
        if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(entry)) {
          wiped++;
        }
      }
    } catch (NoSuchFileException e) {
      // No directory: nothing to wipe.
    } catch (IOException e) {
      return StdioServerHost.error("wipe_scratch could not wipe " + workspace + ": " + e);
    }
    return StdioServerHost.text("wiped " + wiped + " files in " + workspace);
  }

  /**
   * The scratch directory of a workspace.
   *
   * @param workspace one directory name
   * @return {@code <java.io.tmpdir>/cotenant-sample-destructive/<workspace>}
   */
  static Path scratchDirectory(String workspace) {
    return Path.of(System.getProperty("java.io.tmpdir"), SCRATCH_ROOT, workspace);
  }
}
