package dev.cotenant.cli.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The entry {@code route} writes in place of a server, for each way of starting Cotenant. */
class LaunchTest {
  private static List<String> args(JsonNode entry) {
    return StreamSupport.stream(entry.path("args").spliterator(), false).map(JsonNode::stringValue).toList();
  }

  /**
   * Kills {@code entry} without its {@code prefix.forEach}: an entry started through the jar runs
   * {@code java} with the shim's options and {@code -jar} before {@code connect}; without them the
   * client would start {@code java connect NAME SIDECAR} and the server would never come up.
   */
  @Test
  void theJarLaunchPutsTheJvmOptionsAndTheJarBeforeConnect() {
    Path sidecar = Path.of("/home/ana/.cotenant/routes/mcp-0123456789ab.json");

    ObjectNode e = Launch.jar("/usr/lib/jvm/bin/java", Path.of("/opt/cotenant/./cotenant.jar")).entry("files", sidecar, false, Optional.empty());

    List<String> expected = new ArrayList<>(Launch.JVM_OPTIONS);
    expected.addAll(List.of("-jar", "/opt/cotenant/cotenant.jar", "connect", "files", sidecar.toString()));
    assertFalse(Launch.JVM_OPTIONS.isEmpty());
    assertEquals("/usr/lib/jvm/bin/java", e.path("command").stringValue());
    assertEquals(expected, args(e));
    assertFalse(e.has("env") || e.has("type"), e.toString());
  }

  /**
   * Kills {@code entry} without its {@code cotenantHome.ifPresent}: a home set explicitly reaches
   * the client's process as {@code COTENANT_HOME}, so its {@code connect} finds the same daemon
   * and records; and a typed map's entry says {@code stdio}.
   */
  @Test
  void anExplicitHomeGoesIntoTheEntrysEnvironmentAndATypedEntrySaysStdio() {
    ObjectNode e = Launch.launcher("/some/cotenant").entry("git", Path.of("/s.json"), true, Optional.of(Path.of("/srv/cotenant-home")));

    assertEquals("stdio", e.path("type").stringValue());
    assertEquals(List.of("connect", "git", "/s.json"), args(e));
    assertEquals("/srv/cotenant-home", e.path("env").path("COTENANT_HOME").stringValue());
    assertEquals(1, e.path("env").size());
  }

  /**
   * The native shim's entry: the shim, then {@code --java JAVA --jar JAR} (what it starts a
   * daemon with), then {@code connect NAME SIDECAR} as every routed entry ends, which is how
   * {@link Router} recognises it.
   */
  @Test
  void theNativeShimsEntryNamesJavaAndTheJarBeforeConnect() {
    Path sidecar = Path.of("/home/ana/.cotenant/routes/mcp-0123456789ab.json");

    ObjectNode e = Launch.nativeShim(Path.of("/home/ana/.cotenant/lib/./cotenant-shim-0123456789abcdef"), "/usr/bin/java",
        Path.of("/home/ana/.cotenant/lib/cotenant-fedcba9876543210.jar")).entry("files", sidecar, false, Optional.empty());

    assertEquals("/home/ana/.cotenant/lib/cotenant-shim-0123456789abcdef", e.path("command").stringValue());
    assertEquals(List.of("--java", "/usr/bin/java", "--jar", "/home/ana/.cotenant/lib/cotenant-fedcba9876543210.jar",
        "connect", "files", sidecar.toString()), args(e));
    assertTrue(Router.routesThrough(e, "files", sidecar));
  }
}
