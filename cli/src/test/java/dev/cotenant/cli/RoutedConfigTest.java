package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.ProbeHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * After {@code route --apply}, the commands that read server configurations read each routed
 * entry as the original its sidecar keeps: the same verdicts as on the original file, a
 * measurement of the server and never of the shim, and one line for a routed entry whose
 * original cannot be found.
 */
class RoutedConfigTest extends SpawningCliTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String LAUNCHER = "/some/cotenant";

  @BeforeEach
  void setUp() throws Exception {
    String text = cli.writeProbeServers("mcp.json", List.of("echo", "global"),
        Map.of("remote", Map.of("type", "http", "url", "http://127.0.0.1:9/mcp")));
    cli.write("routed.json", text);
    CliHarness.Result routed = cli.run("route", "routed.json", "--all", "--launcher", LAUNCHER, "--apply");
    assertEquals(0, routed.code(), routed.err());
    assertTrue(routed.out().contains("routed:          echo, global"), routed.out());
  }

  private Path sidecar() throws Exception {
    try (Stream<Path> s = Files.list(cli.home.resolve(".cotenant/routes"))) {
      return s.findFirst().orElseThrow();
    }
  }

  /** Each row without its source: name, strength, recommendations and reasons. */
  private static List<String> verdicts(String json) {
    List<String> out = new ArrayList<>();
    for (JsonNode s : JSON.readTree(json).path("servers")) {
      ObjectNode o = (ObjectNode) s.deepCopy();
      o.remove("source");
      out.add(o.toString());
    }
    return out;
  }

  @Test
  void assessAndMeasureOnTheRoutedFileGiveTheOriginalsVerdictsAndMeasureTheServerNotTheShim() throws Exception {
    String routedText = Files.readString(cli.cwd.resolve("routed.json"));
    assertTrue(routedText.contains(LAUNCHER), routedText);

    CliHarness.Result before = cli.run("assess", "routed.json", "--json");
    assertEquals(0, before.code(), before.err());
    assertEquals(List.of("cotenant: echo, global (routed; originals from " + sidecar() + ")"), before.errLines());
    assertEquals(verdicts(cli.run("assess", "mcp.json", "--json").out()), verdicts(before.out()));

    CliHarness.Result measured = cli.run("measure", "routed.json", "--json");
    assertEquals(0, measured.code(), measured.err());
    assertEquals(ProbeHarness.JAVA, cli.transport.commands.get("echo"), "the server was measured, not the shim");
    assertEquals(ProbeHarness.JAVA, cli.transport.commands.get("global"));
    assertTrue(measured.err().contains("cotenant: measured 2 of 2 servers"), measured.err());

    // The original file reads the same records: same identities, nothing left to measure.
    CliHarness.Result original = cli.run("measure", "mcp.json", "--json");
    assertTrue(original.err().contains("nothing to measure"), original.err());
    assertEquals(verdicts(measured.out()), verdicts(original.out()));
    assertTrue(verdicts(original.out()).get(0).contains("\"strength\":\"measured\""), original.out());

    // A probe through the routed file is a probe of the original, recorded under its identity.
    CliHarness.Result probe = cli.run("probe-stateless", "global", "routed.json");
    assertEquals(ProbeStatelessCommand.EXIT_LEAK, probe.code(), probe.out() + probe.err());
    assertEquals(verdicts(cli.run("assess", "mcp.json", "--json").out()), verdicts(cli.run("assess", "routed.json", "--json").out()));
    assertTrue(verdicts(cli.run("assess", "mcp.json", "--json").out()).get(1).contains("\"strength\":\"refuted\""));
  }

  @Test
  void aRoutedEntryWhoseOriginalIsMissingIsOneLineAndNeverTheShim() throws Exception {
    Path sidecar = sidecar();
    ObjectNode kept = (ObjectNode) JSON.readTree(Files.readString(sidecar));
    ((ObjectNode) kept.path("mcpServers")).remove("global");
    Files.writeString(sidecar, kept.toString());

    CliHarness.Result assess = cli.run("assess", "routed.json", "--json");
    assertEquals(0, assess.code(), assess.err());
    assertEquals(List.of("cotenant: echo (routed; original from " + sidecar + ")",
        "cotenant: warning: routed.json: server \"global\" is routed through the daemon, but its sidecar " + sidecar
            + " holds no original entry for it; left out, the shim is not read as the server (put the original entry "
            + "back in the file, or route it again)"), assess.errLines());
    List<String> names = new ArrayList<>();
    JSON.readTree(assess.out()).path("servers").forEach(s -> names.add(s.path("name").stringValue()));
    assertEquals(List.of("echo", "remote"), names);

    Files.delete(sidecar);
    CliHarness.Result measure = cli.run("measure", "routed.json");
    assertEquals(0, measure.code(), measure.err());
    assertEquals(Map.of(), Map.copyOf(cli.transport.calls), "nothing measured: " + measure.err());
    assertTrue(measure.errLines().contains("cotenant: warning: routed.json: server \"echo\" is routed through the daemon, "
        + "but its sidecar " + sidecar + " does not exist; left out, the shim is not read as the server (put the original "
        + "entry back in the file, or route it again)"), measure.err());

    for (String command : List.of("probe-stateless", "share")) {
      CliHarness.Result named = cli.run(command, "echo", "routed.json");
      assertEquals(Cli.EXIT_USAGE, named.code(), command);
      assertEquals("cotenant: routed.json: server \"echo\" is routed through the daemon, but its sidecar " + sidecar
          + " does not exist; left out, the shim is not read as the server (put the original entry back in the file, or "
          + "route it again)", named.errLines().get(named.errLines().size() - 1));
      assertEquals("", named.out(), command);
    }
  }
}
