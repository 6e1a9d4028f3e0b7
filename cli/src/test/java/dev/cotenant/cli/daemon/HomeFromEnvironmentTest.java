package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.testkit.process.ChecksProcessLeaks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code HOME=/x cotenant ...} with no {@code COTENANT_HOME}: the commands (run as their own
 * process through {@code dev.cotenant.cli.Main}, as the {@code cotenant} launcher runs them) and
 * the native shim both take the home {@code /x/.cotenant}, as a shell's {@code ~} would. Before,
 * the JVM read the password database's home ({@code user.home}) and ignored {@code $HOME}.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class HomeFromEnvironmentTest {
  @TempDir Path dir;

  /** Runs {@code command} with {@code HOME=home} and no {@code COTENANT_HOME}; its exit status and standard error. */
  private static String[] run(List<String> command, Path home, Path cwd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().remove("COTENANT_HOME");
    pb.environment().put("HOME", home.toString());
    Process p = pb.start();
    try {
      p.getOutputStream().close();
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> {
        try (var in = p.getErrorStream()) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
          return "";
        }
      });
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not finish");
      return new String[] {String.valueOf(p.exitValue()), err.get(60, TimeUnit.SECONDS)};
    } finally {
      p.destroyForcibly();
      p.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static List<String> main(String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "dev.cotenant.cli.Main"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Kills the mutant that reads {@code user.home} in {@code Main} (for the commands and the JVM shim's fast path). */
  @Test
  void theCommandsAndTheJvmShimTakeTheHomeFromHome() throws Exception {
    Path home = Files.createDirectories(dir.resolve("x"));
    Path expected = home.resolve(".cotenant");
    String[] status = run(main("status"), home, dir);
    assertEquals("1", status[0], status[1]);
    assertTrue(status[1].contains("no daemon runs for " + expected + " "), status[1]);
    String[] connect = run(main("connect", "echo", "--no-start"), home, dir);
    assertEquals("cotenant connect echo: no daemon runs for " + expected + " (start one: cotenant serve)\n", connect[1]);
  }

  /** Kills the mutant of the native shim that reads the password database before {@code $HOME}. */
  @Test
  void theNativeShimTakesTheHomeFromHome() throws Exception {
    Path shim = NativeShimTest.binary();
    Path home = Files.createDirectories(dir.resolve("y"));
    String[] connect = run(List.of(shim.toString(), "connect", "echo", "--no-start"), home, dir);
    assertEquals("1", connect[0], connect[1]);
    assertEquals("cotenant connect echo: no daemon runs for " + home.resolve(".cotenant") + " (start one: cotenant serve)\n",
        connect[1]);
  }
}
