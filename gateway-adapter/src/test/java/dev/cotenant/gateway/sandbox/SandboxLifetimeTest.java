package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing a sandboxed server starts outlives the probe that started it, however the probe ends:
 * a probe process killed with SIGKILL takes the server, its child and its {@code setsid}
 * grandchild with it (real bubblewrap, {@code --die-with-parent} and the pid namespace).
 */
class SandboxLifetimeTest {
  @TempDir Path temp;

  /**
   * Kills the mutant without {@code --die-with-parent}: bubblewrap, and with it the pid namespace,
   * would outlive the killed process.
   */
  @Test
  void aProbeKilledWithSigkillLeavesNoProcessOfItsSandbox() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process probe = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        SandboxChild.class.getName(), SandboxBoundaryTest.bwrap(), temp.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<ProcessHandle> tree = new ArrayList<>();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("started", out.readLine());
      probe.descendants().forEach(tree::add);
      // bubblewrap, its init in the namespace, sh, and the two sleeps
      assertTrue(tree.size() >= 5, tree.toString());
      assertTrue(tree.stream().anyMatch(p -> p.info().command().orElse("").endsWith("sleep")), tree.toString());

      probe.destroyForcibly();
      assertTrue(probe.waitFor(60, TimeUnit.SECONDS));
      List<Long> alive = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      for (ProcessHandle p : tree) {
        try {
          p.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          alive.add(p.pid());
        }
      }
      assertEquals(List.of(), alive, "still running after the probe was killed");
    } finally {
      probe.destroyForcibly();
      tree.forEach(ProcessHandle::destroyForcibly);
    }
  }

  /**
   * Kills the mutant that opens sandboxed servers on the caller's thread: a pool thread that ends
   * would take the server with it ({@code --die-with-parent} follows the spawning thread).
   */
  @Test
  void everySandboxedServerIsSpawnedFromOneThreadWhateverThreadAsks() throws Exception {
    List<String> threads = new ArrayList<>();
    SessionTransport recording = new SessionTransport() {
      @Override
      public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
          throws SessionException {
        threads.add(Thread.currentThread().getName());
        throw new SessionException(SessionException.Kind.START, "recorded");
      }

      @Override
      public boolean runsCommandLocally() {
        return true;
      }
    };
    SandboxedSessions sessions = new SandboxedSessions(recording,
        new SandboxLayout("bwrap", false, temp, temp, new HostBoundary(List.of(), Map.of())), List.of());
    for (int i = 0; i < 2; i++) {
      Thread t = new Thread(() -> assertThrows(SessionException.class,
          () -> sessions.open(ServerDescription.stdio("s", "sh"), "b", ServerMessageHandler.noUser("test"))), "asker-" + i);
      t.start();
      t.join();
    }
    assertEquals(List.of("cotenant-sandbox-spawner", "cotenant-sandbox-spawner"), threads);
    try (var left = Files.list(temp)) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().startsWith(SandboxLayout.PREFIX)),
          "the private directory of a launch that failed is removed");
    }
  }
}
