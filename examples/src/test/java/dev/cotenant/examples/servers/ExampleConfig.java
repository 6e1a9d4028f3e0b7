package dev.cotenant.examples.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code examples/mcp.json}, read the way the CLI reads it: commands relative to the file's own directory. */
final class ExampleConfig {

  /** The repository root: the parent of the examples module the tests run in. */
  static final Path REPOSITORY_ROOT = Path.of("").toAbsolutePath().getParent();

  private ExampleConfig() {}

  /** Every entry of the {@code mcpServers} map, in file order. */
  static Map<String, JsonNode> servers() throws IOException {
    JsonNode root = JsonMapper.builder().build().readTree(Files.readString(REPOSITORY_ROOT.resolve("examples/mcp.json")));
    Map<String, JsonNode> servers = new LinkedHashMap<>();
    root.path("mcpServers").properties().forEach(entry -> servers.put(entry.getKey(), entry.getValue()));
    return servers;
  }

  /** The absolute path of an entry's command. */
  static Path command(JsonNode entry) {
    return REPOSITORY_ROOT.resolve("examples").resolve(entry.path("command").stringValue());
  }
}
