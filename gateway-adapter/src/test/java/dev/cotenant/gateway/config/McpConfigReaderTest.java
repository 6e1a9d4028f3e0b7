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
                + "\"env\":{\"A\":\"1\",\"N\":\"2\"},\"cwd\":\"/srv\"},"
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
    // Kills McpConfigReader.kind, each of its remaining tests negated and each return replaced with "".
    assertProblem("{\"mcpServers\":true}", "\"mcpServers\" must be an object mapping names to servers, found a boolean");
    assertProblem("{\"mcpServers\":null}", "\"mcpServers\" must be an object mapping names to servers, found null");
    assertProblem("{\"mcpServers\":2.5}", "\"mcpServers\" must be an object mapping names to servers, found a number");
    assertProblem("{\"mcpServers\":\"x\"}", "\"mcpServers\" must be an object mapping names to servers, found a string");
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

  @Test
  void vsCodeJsoncWithCommentsAndTrailingCommasIsRead() throws Exception {
    Path f = write("mcp.jsonc", "{\n  // VS Code writes comments\n  \"servers\": {\n"
        + "    /* a block comment */\n    \"fs\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\",],},\n  },\n}\n");
    assertEquals(List.of("-y"), reader.read(List.of(f)).get("fs").orElseThrow().description().args());
  }

  @Test
  void aFifoIsRefusedAsNotARegularFileWithoutReadingIt() throws Exception {
    Path fifo = dir.resolve("mcp.fifo");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertEquals(0, mk.waitFor());
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(fifo)));
    assertEquals("not a regular file (a FIFO, a socket or a device); expected a JSON file", e.problem());
  }

  @Test
  void aDeviceIsRefusedAsNotARegularFile() {
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(Path.of("/dev/zero"))));
    assertEquals("not a regular file (a FIFO, a socket or a device); expected a JSON file", e.problem());
  }

  @Test
  void anOversizedFileIsSaidToBeTooLargeNotMalformed() throws Exception {
    Path big = dir.resolve("big.json");
    try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(big.toFile(), "rw")) {
      raf.setLength(McpConfigReader.MAX_BYTES + 1);
    }
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(big)));
    assertTrue(e.problem().startsWith("the file is too large (" + (McpConfigReader.MAX_BYTES + 1) + " bytes"), e.problem());
  }

  @Test
  void aFileOfExactlyTheSizeBoundIsRead() throws Exception {
    // Kills parse, both size checks `> MAX_BYTES` changed to `>=` (ConditionalsBoundaryMutator).
    String json = "{\"mcpServers\":{\"s\":{\"command\":\"x\"}}}";
    Path f = dir.resolve("full.json");
    Files.writeString(f, json + " ".repeat((int) McpConfigReader.MAX_BYTES - json.length()));
    assertEquals(McpConfigReader.MAX_BYTES, Files.size(f));
    // readFile on its own (it was reached only through read): kills it returning an empty list.
    assertEquals(List.of("s"), reader.readFile(f).stream().map(ConfiguredServer::name).toList());
  }

  @Test
  void anEnvValueThatIsNotAStringIsAClearError() throws Exception {
    Path f = write("n.json", "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"PORT\":8080}}}}");
    ConfigException e = assertThrows(ConfigException.class, () -> reader.read(List.of(f)));
    assertEquals("server \"s\": env \"PORT\" must be a string (quote it: \"8080\"), found a number", e.problem());
    Path o = write("o.json", "{\"mcpServers\":{\"s\":{\"command\":\"x\",\"env\":{\"PORT\":{\"v\":1}}}}}");
    assertEquals("server \"s\": env \"PORT\" must be a string, found an object",
        assertThrows(ConfigException.class, () -> reader.read(List.of(o))).problem());
  }

  @Test
  void aNameWithAControlCharacterIsRefusedAloneAndTheOtherServersAreRead() throws Exception {
    Path f = write("nul.json", "{\"mcpServers\":{\"bad\\u0000name\":{\"command\":\"x\"},"
        + "\"tab\\tname\":{\"command\":\"x\"},\"good\":{\"command\":\"y\"}}}");
    ServerConfigs c = reader.read(List.of(f));
    assertEquals(List.of("good"), c.list().stream().map(ConfiguredServer::name).toList());
    assertEquals(2, c.refused().size());
    assertEquals("server \"bad\\u0000name\" is refused: its name holds the control character U+0000; rename it",
        c.refused().get(0).reason());
    assertEquals(f, c.refused().get(0).file());
    ConfigException strict = assertThrows(ConfigException.class, () -> reader.readFile(f));
    assertTrue(strict.problem().contains("U+0000"), strict.problem());
  }

  @Test
  void relativeCommandsAndWorkingDirectoriesResolveAgainstTheFilesDirectory() throws Exception {
    Path sub = Files.createDirectories(dir.resolve("project"));
    Path f = sub.resolve("mcp.json");
    Files.writeString(f, "{\"mcpServers\":{"
        + "\"local\":{\"command\":\"bin/server\",\"cwd\":\"data\"},"
        + "\"dot\":{\"command\":\"./run.sh\"},"
        + "\"onPath\":{\"command\":\"node\",\"args\":[\"dist/index.js\"]},"
        + "\"absolute\":{\"command\":\"/usr/bin/env\",\"cwd\":\"/srv\"}}}");
    ServerConfigs c = reader.read(List.of(f));
    assertEquals(sub.resolve("bin/server").toAbsolutePath().toString(), c.get("local").orElseThrow().description().command());
    assertEquals(Optional.of(sub.resolve("data").toAbsolutePath().toString()), c.get("local").orElseThrow().description().cwd());
    assertEquals(sub.resolve("run.sh").toAbsolutePath().toString(), c.get("dot").orElseThrow().description().command());
    assertEquals("node", c.get("onPath").orElseThrow().description().command(), "a bare name is a PATH lookup");
    assertEquals(List.of("dist/index.js"), c.get("onPath").orElseThrow().description().args(), "arguments are left as written");
    assertEquals("/usr/bin/env", c.get("absolute").orElseThrow().description().command());
    assertEquals(Optional.of("/srv"), c.get("absolute").orElseThrow().description().cwd());
  }
}
