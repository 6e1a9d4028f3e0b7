package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command a daemon is started with, by a shim and by {@code cotenant serve} in a terminal
 * (both through {@link DaemonStarter#javaCommand()}).
 */
@ChecksProcessLeaks
class DaemonStarterTest {
  /**
   * The daemon's JVM options come right after this JVM's {@code java}, before the class path and
   * the main class. Mutant: {@code javaCommand} without {@code addAll(DAEMON_JVM_OPTIONS)}.
   */
  @Test
  void theDaemonsCommandCarriesItsJvmOptions() {
    List<String> cmd = DaemonStarter.javaCommand();
    int options = DaemonStarter.DAEMON_JVM_OPTIONS.size();
    assertEquals(DaemonStarter.DAEMON_JVM_OPTIONS, cmd.subList(1, 1 + options));
    assertEquals(List.of("-cp", DaemonStarter.absoluteClassPath(), "dev.cotenant.cli.Main"),
        cmd.subList(1 + options, cmd.size()));
  }

  /** This JVM starts with the daemon's options, saying nothing about them (no option it ignores or corrects). */
  @Test
  void thisJvmAcceptsTheDaemonsOptions() throws Exception {
    List<String> cmd = new ArrayList<>(DaemonStarter.javaCommand().subList(0, 1 + DaemonStarter.DAEMON_JVM_OPTIONS.size()));
    cmd.add("-version");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "java -version did not exit");
      assertEquals(0, p.exitValue(), out);
      assertTrue(out.lines().allMatch(l -> l.contains("version") || l.contains("Runtime Environment")
          || l.contains("VM (build")), out);
    } finally {
      p.destroyForcibly();
    }
  }
}
