package dev.cotenant.gateway.config;

import java.nio.file.Path;
import java.util.List;

/**
 * The usual places MCP hosts keep their server configuration, in the order Cotenant reads them
 * when no file is named: project files first (so a project's definition of a name wins), then
 * the user's editor and desktop-app files.
 */
public final class DefaultConfigLocations {
  private DefaultConfigLocations() {}

  /**
   * Candidate files, whether or not they exist.
   *
   * @param workingDirectory the directory the command runs in
   * @param home the user's home directory
   */
  public static List<Path> candidates(Path workingDirectory, Path home) {
    return List.of(
        workingDirectory.resolve(".mcp.json"),
        workingDirectory.resolve(".vscode/mcp.json"),
        workingDirectory.resolve(".cursor/mcp.json"),
        home.resolve(".cursor/mcp.json"),
        home.resolve(".kiro/settings/mcp.json"),
        home.resolve(".config/Claude/claude_desktop_config.json"),
        home.resolve("Library/Application Support/Claude/claude_desktop_config.json"),
        home.resolve(".config/Code/User/mcp.json"),
        home.resolve("Library/Application Support/Code/User/mcp.json"));
  }
}
