package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** {@code seed --apply} changes the user's file as they have it, and nothing else. */
class SeedRespectsTheFileTest {
  @TempDir Path tmp;

  private static final String FOUR_SPACES = "{\n"
      + "    \"mcpServers\" : {\n"
      + "        \"echo\" : {\n"
      + "            \"command\" : \"/nonexistent/echo\"\n"
      + "        }\n"
      + "    }\n"
      + "}\n";

  private static List<String> listing(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aSymlinkedFileIsWrittenAtItsTargetWithItsModeAndIndentationAndNoLockFileBesideIt() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    Path real = Files.createDirectories(tmp.resolve("dotfiles")).resolve("mcp.json");
    Files.writeString(real, FOUR_SPACES);
    Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-r--r--"));
    Path link = cli.cwd.resolve("mcp.json");
    Files.createSymbolicLink(link, real);
    assertEquals(0, cli.run("measure", "mcp.json").code());

    CliHarness.Result r = cli.run("seed", "--config", "mcp.json", "--apply");

    assertEquals(0, r.code(), r.err());
    assertTrue(Files.isSymbolicLink(link), "the link is still a link");
    assertEquals(real, Files.readSymbolicLink(link));
    String written = Files.readString(real);
    assertTrue(JsonMapper.builder().build().readTree(written).path("cotenant").path("stubOverrides").path("echo").asBoolean(),
        written);
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));
    assertTrue(written.startsWith("{\n    \"mcpServers\" : {\n        \"echo\" : {\n"), written);
    assertTrue(written.endsWith("}\n"), written);
    assertEquals(List.of("mcp.json"), listing(real.getParent()), "nothing beside the target");
    assertEquals(List.of("mcp.json"), listing(cli.cwd), "nothing beside the link");
  }

  @Test
  void aTabIndentedFileStaysTabIndented() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\n\t\"mcpServers\": {\n\t\t\"echo\": {\"command\": \"/nonexistent/echo\"}\n\t}\n}\n");
    assertEquals(0, cli.run("measure", "mcp.json").code());
    assertEquals(0, cli.run("seed", "--config", "mcp.json", "--apply").code());
    String written = Files.readString(cli.cwd.resolve("mcp.json"));
    assertTrue(written.startsWith("{\n\t\"mcpServers\": {\n\t\t\"echo\": {\n\t\t\t\"command\": "), written);
  }

  @Test
  void aFileWithCommentsIsNeverRewritten() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    String jsonc = "{\n  // my servers\n  \"servers\": {\"echo\": {\"type\": \"stdio\", \"command\": \"/nonexistent/echo\"}}\n}\n";
    cli.write("mcp.json", jsonc);
    assertEquals(0, cli.run("measure", "mcp.json").code());

    CliHarness.Result r = cli.run("seed", "--config", "mcp.json", "--apply");

    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().startsWith("cotenant: mcp.json: holds comments, which rewriting it would lose; nothing was written."),
        r.err());
    assertEquals(jsonc, Files.readString(cli.cwd.resolve("mcp.json")));
  }
}
