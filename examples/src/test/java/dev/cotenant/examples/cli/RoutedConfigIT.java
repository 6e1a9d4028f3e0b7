package dev.cotenant.examples.cli;

import static dev.cotenant.examples.cli.CotenantCliIT.cotenant;
import static dev.cotenant.examples.cli.CotenantCliIT.reasons;
import static dev.cotenant.examples.cli.CotenantCliIT.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.examples.cli.CotenantCliIT.Run;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A real {@code ./cotenant route --apply} of a copy of a configuration of sample servers, then
 * {@code assess} and {@code measure} on the routed copy: each routed entry is read as the original
 * its sidecar keeps. No process it started is left behind.
 */
@ChecksProcessLeaks(waitMillis = CotenantCliIT.EXIT_BOUND_MILLIS)
class RoutedConfigIT {
  /** The repository root: the parent of the examples module the tests run in. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private String records() {
    return tmp.resolve("records").toString();
  }

  /**
   * {@code route --apply} of a copy of a configuration (commands made absolute, as routing needs),
   * then {@code assess} and {@code measure} on the routed copy: the verdicts of the original file,
   * and the server measured, not the shim (a measured shim would start a daemon, which the leak
   * check would find, and would fail otherwise than the credential-less server does).
   */
  @Test
  void assessAndMeasureOnARoutedCopyGiveTheOriginalsVerdictsAndMeasureTheServerNotTheShim() throws Exception {
    ObjectNode servers = JSON.createObjectNode();
    for (String name : List.of("echo", "global-state", "caller-identity", "needs-credential")) {
      servers.putObject(name).put("command", ROOT.resolve("examples/bin").resolve(name).toString()).putArray("args");
    }
    servers.putObject("remote-http").put("type", "http").put("url", "http://127.0.0.1:9/mcp");
    String text = JSON.createObjectNode().set("mcpServers", servers).toPrettyString();
    Path original = Files.writeString(tmp.resolve("original.json"), text);
    Path routed = Files.writeString(tmp.resolve("routed.json"), text);
    Map<String, String> home = Map.of("COTENANT_HOME", tmp.resolve("home").toString());

    Run measured = cotenant(home, "measure", original.toString(), "--json", "--records-dir", records());
    assertEquals(0, measured.code(), measured.err());
    Run route = cotenant(home, "route", routed.toString(), "--apply", "--all");
    assertEquals(0, route.code(), route.err());
    assertTrue(route.out().contains("routed:          echo, global-state, caller-identity, needs-credential"), route.out());
    assertTrue(Files.readString(routed).contains("\"connect\""), Files.readString(routed));

    Run assess = cotenant(home, "assess", routed.toString(), "--json", "--records-dir", records());
    assertEquals(0, assess.code(), assess.err());
    assertTrue(assess.err().contains("echo, global-state, caller-identity, needs-credential (routed; originals from "
        + tmp.resolve("home/routes")), assess.err());
    assertEquals(verdicts(measured.out()), verdicts(assess.out()));
    assertEquals("declared", rows(assess.out()).get("caller-identity").path("strength").stringValue());

    Run again = cotenant(home, "measure", routed.toString(), "--json", "--records-dir", records());
    assertEquals(0, again.code(), again.err());
    assertTrue(again.err().contains("measuring: 1/1 done, 0 measured"), "only needs-credential is due: " + again.err());
    assertEquals(verdicts(measured.out()), verdicts(again.out()));
    assertTrue(reasons(rows(again.out()).get("needs-credential")).stream().anyMatch(r -> r.contains("SAMPLE_API_TOKEN")),
        "the original ran and asked for its credential: " + again.out());
    assertFalse(Files.exists(tmp.resolve("home/daemon.json")), "no daemon was started");

    // Without the sidecar, the routed entries are left out, one line each, and nothing is started.
    try (var sidecars = Files.list(tmp.resolve("home/routes"))) {
      for (Path p : sidecars.toList()) {
        Files.delete(p);
      }
    }
    Run lost = cotenant(home, "measure", routed.toString(), "--json", "--records-dir", tmp.resolve("fresh").toString());
    assertEquals(0, lost.code(), lost.err());
    assertEquals(List.of("remote-http"), List.copyOf(rows(lost.out()).keySet()), lost.out());
    assertEquals(4, lost.err().lines().filter(l -> l.startsWith("cotenant: warning: ") && l.contains(" is routed through "
        + "the daemon, but its sidecar ") && l.contains(" does not exist; left out")).count(), lost.err());
    assertTrue(lost.err().contains("nothing to measure"), lost.err());
    assertFalse(Files.exists(tmp.resolve("home/daemon.json")), "no daemon was started");
  }

  /** Each row's verdict by name: strength, recommendations and reasons, without the source file. */
  private static Map<String, String> verdicts(String json) {
    Map<String, String> out = new LinkedHashMap<>();
    rows(json).forEach((name, row) -> {
      ObjectNode o = (ObjectNode) row.deepCopy();
      o.remove("source");
      out.put(name, o.toString());
    });
    return out;
  }
}
