package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.PreflightResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A row says why a pre-flight did not run: {@code preflight_not_run(<reason>)} beside
 * {@code not_probed}, in the table and the JSON of {@code measure}, and in {@code assess}
 * afterwards, which reads the same records. It changes neither the strength nor a
 * recommendation.
 */
class PreflightNotRunRowTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private static JsonNode onlyRow(CliHarness.Result r) {
    assertEquals(0, r.code(), r.err());
    JsonNode servers = JSON.readTree(r.out()).path("servers");
    assertEquals(1, servers.size(), r.out());
    return servers.get(0);
  }

  @Test
  void aServerWhoseCommandDoesNotExistSaysWhyAfterMeasure_inTheTableAndTheJson() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.fakePreflight = false;
    cli.write("mcp.json", "{\"mcpServers\": {\"missing\": {\"command\": \"/nonexistent/cotenant-test/missing-server\"}}}");

    CliHarness.Result table = cli.run("measure", "mcp.json");
    assertEquals(0, table.code(), table.err());
    List<String> lines = table.out().lines().toList();
    assertEquals(2, lines.size(), table.out());
    String row = lines.get(1);
    assertTrue(row.matches("missing +unknown +no +no +mcp\\.json +not_probed, preflight_not_run\\(.+\\)"), row);
    assertTrue(row.contains("missing-server"), "the reason names what could not be started: " + row);

    JsonNode json = onlyRow(cli.run("measure", "mcp.json", "--json"));
    assertEquals("unknown", json.path("strength").stringValue());
    assertFalse(json.path("recommendStub").booleanValue());
    assertFalse(json.path("recommendShare").booleanValue());
    JsonNode reasons = json.path("reasons");
    assertEquals(2, reasons.size(), json.toString());
    assertEquals("not_probed", reasons.get(0).path("code").stringValue());
    assertEquals("preflight_not_run", reasons.get(1).path("code").stringValue());
    String detail = reasons.get(1).path("detail").stringValue();
    assertFalse(detail.isBlank(), json.toString());
    assertTrue(row.contains("preflight_not_run(" + detail + ")"), "the table shows the same reason: " + row);

    JsonNode assessed = onlyRow(cli.run("assess", "mcp.json", "--json"));
    assertEquals(json, assessed, "assess reads the same records and shows the same row");
  }

  @Test
  void theReasonIsEscapedInTheTable_verbatimInTheJson_andBoundedInBoth() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", "{\"mcpServers\": {\"crashes\": {\"command\": \"/nonexistent/cotenant-test/crashes\"}}}");
    String stderr = "exited 1 before answering: boom\n\u001b[31mFORGED\u001b[0m ";
    cli.transport.answers.put("crashes", PreflightResult.notRun(stderr + "x".repeat(2_000)));

    CliHarness.Result table = cli.run("measure", "mcp.json");
    assertEquals(0, table.code(), table.err());
    List<String> lines = table.out().lines().toList();
    assertEquals(2, lines.size(), "one row is one line: " + table.out());
    assertFalse(table.out().contains("\u001b"), "no raw ESC reaches the terminal");
    assertTrue(lines.get(1).contains("preflight_not_run(exited 1 before answering: boom\\n\\u001b[31mFORGED"), lines.get(1));
    assertTrue(lines.get(1).endsWith("…)"), "cut, and says so: " + lines.get(1));

    JsonNode row = onlyRow(cli.run("assess", "mcp.json", "--json"));
    String detail = row.path("reasons").get(1).path("detail").stringValue();
    assertTrue(detail.startsWith(stderr), "JSON carries the reason verbatim: " + detail);
    assertTrue(detail.length() <= 500, "bounded: " + detail.length());
    assertTrue(detail.endsWith("…"), detail);
  }
}
