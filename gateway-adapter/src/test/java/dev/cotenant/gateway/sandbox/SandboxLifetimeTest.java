package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
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
   * Kills the mutants that open sandboxed servers on the caller's thread, or on a thread that ends
   * once the server is started: either thread's end would take the server with it
   * ({@code --die-with-parent} follows the spawning thread). The thread lives until the session is
   * closed, and then ends.
   */
  @Test
  void eachSandboxedServerIsSpawnedFromAThreadThatLivesUntilItsSessionIsClosed() throws Exception {
    List<Thread> spawners = new ArrayList<>();
    List<String> closed = new ArrayList<>();
    SessionTransport recording = new SessionTransport() {
      @Override
      public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler) {
        spawners.add(Thread.currentThread());
        return (ServerSession) java.lang.reflect.Proxy.newProxyInstance(ServerSession.class.getClassLoader(),
            new Class<?>[] {ServerSession.class}, (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                closed.add(label);
              }
              return null;
            });
      }

      @Override
      public boolean runsCommandLocally() {
        return true;
      }
    };
    SandboxedSessions sessions = new SandboxedSessions(recording,
        new SandboxLayout("bwrap", false, temp, temp, new HostBoundary(List.of(), Map.of())), List.of());
    ServerSession[] opened = new ServerSession[1];
    Thread asker = new Thread(() -> {
      try {
        opened[0] = sessions.open(ServerDescription.stdio("s", "sh"), "b", ServerMessageHandler.noUser("test"));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "asker");
    asker.start();
    asker.join();
    assertEquals(1, spawners.size());
    Thread spawner = spawners.get(0);
    assertTrue(spawner != asker && spawner.getName().startsWith("cotenant-sandbox-"), spawner.getName());
    assertTrue(spawner.isAlive(), "the spawning thread ended while its server runs");
    opened[0].close();
    spawner.join(TimeUnit.SECONDS.toMillis(60));
    assertFalse(spawner.isAlive(), "the spawning thread outlived its session");
    assertEquals(List.of("b"), closed);
    try (var left = Files.list(temp)) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().startsWith(SandboxLayout.PREFIX)),
          "the private directory is removed with the session");
    }
  }
}
