package dev.cotenant.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class McpConfigReaderTest {
  @TempDir Path dir;
  private final McpConfigReader reader = new McpConfigReader();

  private Path write(String name, String json) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, json);
    return p;
  }

  @Test
  void readsAClaudeDesktopStyleMcpServersMap() throws Exception {
    Path f =
        write(
            "claude.json",
            "{\"mcpServers\":{\"fs\":{\"command\":\"npx\",\"args\":[\"-y\",\"server-fs\",\"/tmp\"],"
                + "\"env\":{\"A\":\"1\",\"N\":2},\"cwd\":\"/srv\"},"
                + "\"off\":{\"command\":\"off-server\",\"disabled\":true},"
                + "\"remote\":{\"url\":\"https://example.invalid/mcp\"},"
                + "\"legacy\":{\"type\":\"sse\",\"url\":\"https://example.invalid/sse\"}}}");

    ServerConfigs c = reader.read(List.of(f));

    ServerDescription fs = c.get("fs").orElseThrow().description();
    assertEquals(Transport.STDIO, fs.transport());
    assertEquals("npx", fs.command());
    assertEquals(List.of("-y", "server-fs", "/tmp"), fs.args());
    assertEquals(Map.of("A", "1", "N", "2"), fs.env());
    assertEquals(Optional.of("/srv"), fs.cwd());
    assertTrue(fs.enabled());
    assertFalse(c.get("off").orElseThrow().description().enabled(), "\"disabled\": true is honoured");
    assertEquals(Transport.HTTP, c.get("remote").orElseThrow().description().transport());
    assertEquals(Transport.SSE, c.get("legacy").orElseThrow().description().transport());
    assertEquals(List.of("fs", "off", "remote", "legacy"), c.list().stream().map(ConfiguredServer::name).toList());
  }

  @Test
  void readsAVsCodeServersMapWithType() throws Exception {
    Path f =
        write(
            "mcp.json",
            "{\"servers\":{\"git\":{\"type\":\"stdio\",\"command\":\"uvx\",\"args\":[\"mcp-server-git\"]},"
                + "\"web\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:3000/mcp\"}}}");

    ServerConfigs c = reader.read(List.of(f));

    assertEquals(Transport.STDIO, c.get("git").orElseThrow().description().transport());
    assertEquals(Transport.HTTP, c.get("web").orElseThrow().description().transport());
  }

  @Test
  void theFirstFileToDefineANameWinsAndEveryRowKnowsItsFile() throws Exception {
    Path project = write("project.json", "{\"mcpServers\":{\"a\":{\"command\":\"project-a\"}}}");
    Path user =
        write("user.json", "{\"mcpServers\":{\"a\":{\"command\":\"user-a\"},\"b\":{\"command\":\"user-b\"}}}");

    ServerConfigs c = reader.read(List.of(project, user));

    assertEquals("project-a", c.get("a").orElseThrow().description().command());
    assertEquals(project, c.get("a").orElseThrow().source());
    assertEquals(user, c.get("b").orElseThrow().source());
    assertEquals(1, c.shadowed().size());
    assertEquals(user, c.shadowed().get(0).source());
  }

  @Test
  void aMissingFileIsNamed() {
    Path f = dir.resolve("absent.json");
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(f)));
    assertEquals(f + ": no such file", e.getMessage());
  }

  @Test
  void malformedJsonNamesTheFileAndThePosition() throws Exception {
    Path f = write("bad.json", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",,}\n}}");
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(f)));
    assertTrue(e.getMessage().startsWith(f + ": malformed JSON at line 2"), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), "one line");
  }

  @Test
  void truncatedAndEmptyFilesAreNamed() throws Exception {
    Path truncated = write("t.json", "{\"mcpServers\": {\"a\": {\"comm");
    Path empty = write("e.json", "");
    assertTrue(
        assertThrows(ConfigException.class, () -> reader.read(List.of(truncated)))
            .getMessage()
            .startsWith(truncated + ": malformed JSON"));
    assertEquals(
        empty + ": the file is empty; expected a JSON object",
        assertThrows(ConfigException.class, () -> reader.read(List.of(empty))).getMessage());
  }

  @Test
  void anUnknownTransportIsNamed() throws Exception {
    Path f = write("t.json", "{\"mcpServers\":{\"w\":{\"type\":\"websocket\",\"url\":\"ws://x\"}}}");
    assertEquals(
        f + ": server \"w\" has unknown transport \"websocket\"; expected stdio, http, streamable-http or sse",
        assertThrows(ConfigException.class, () -> reader.read(List.of(f))).getMessage());
  }

  @Test
  void wrongTypesAreNamedPrecisely() throws Exception {
    assertProblem("{\"mcpServers\":[]}", "\"mcpServers\" must be an object mapping names to servers, found an array");
    assertProblem("{\"mcpServers\":{\"a\":{\"command\":1}}}", "server \"a\": \"command\" must be a string, found a number");
    assertProblem("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"args\":\"-v\"}}}",
        "server \"a\": \"args\" must be an array of strings, found a string");
    assertProblem("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"args\":[1]}}}",
        "server \"a\": \"args\" must hold strings only, found a number");
    assertProblem("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"env\":{\"K\":{}}}}}",
        "server \"a\": env \"K\" must be a string, found an object");
    assertProblem("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"disabled\":\"yes\"}}}",
        "server \"a\": \"disabled\" must be true or false, found a string");
    assertProblem("{\"mcpServers\":{\"a\":{}}}", "server \"a\" has neither \"command\" nor \"url\"");
    assertProblem("{\"mcpServers\":{\"a\":{\"type\":\"stdio\",\"url\":\"http://x\"}}}",
        "server \"a\" is a stdio server without a \"command\"");
    assertProblem("{\"other\":{}}", "no \"mcpServers\" or \"servers\" map: this is not an MCP configuration file");
    assertProblem("[1,2]", "expected a JSON object at the top level, found an array");
  }

  private void assertProblem(String json, String problem) throws IOException {
    Path f = write("p.json", json);
    assertEquals(f + ": " + problem, assertThrows(ConfigException.class, () -> reader.read(List.of(f))).getMessage());
  }

  @Test
  void defaultLocationsPutProjectFilesFirst() {
    List<Path> c = DefaultConfigLocations.candidates(Path.of("/w"), Path.of("/h"));
    assertEquals(Path.of("/w/.mcp.json"), c.get(0));
    assertTrue(c.contains(Path.of("/h/.cursor/mcp.json")));
    assertTrue(c.contains(Path.of("/h/.kiro/settings/mcp.json")));
    assertTrue(c.indexOf(Path.of("/w/.vscode/mcp.json")) < c.indexOf(Path.of("/h/.cursor/mcp.json")));
  }
}
