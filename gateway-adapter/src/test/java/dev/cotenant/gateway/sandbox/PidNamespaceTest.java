package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backends in a pid namespace: the command line each gets, the one thread every spawn runs on
 * (the kernel ties {@code --die-with-parent} to it), and the modes without bubblewrap. A fake
 * {@code bwrap} stands in for the real one here; {@code DaemonIT} runs the real one against a
 * backend whose children try to outlive it.
 */
class PidNamespaceTest {
  @TempDir Path dir;

  /** A stand-in for bubblewrap that passes the trial and says its version. */
  private Path fakeBwrap() throws IOException {
    Path exe = Files.writeString(dir.resolve("bwrap"), "#!/bin/sh\n[ \"$1\" = --version ] && echo 'bubblewrap 9.9.9'\nexit 0\n");
    Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwx------"));
    return exe;
  }

  /** A transport that starts nothing: it fails, saying the thread it ran on and the command line it got. */
  private static final class Recording implements SessionTransport {
    final List<String> threads = new ArrayList<>();

    @Override
    public dev.cotenant.spi.ServerSession open(ServerDescription server, String label,
        ServerMessageHandler handler) throws SessionException {
      threads.add(Thread.currentThread().getName());
      List<String> argv = new ArrayList<>(List.of(server.command()));
      argv.addAll(server.args());
      throw new SessionException(SessionException.Kind.START, String.join(" ", argv));
    }

    @Override
    public boolean runsCommandLocally() {
      return true;
    }
  }

  private static PidNamespace namespace(String mode, Optional<String> bwrap, String path) {
    return new PidNamespace(Sandbox.Setting.valueOf(mode), bwrap, path, "Linux");
  }

  @Test
  void eachBackendStartsUnderBubblewrapFromOneThreadWhateverThreadAsks() throws Exception {
    Path bwrap = fakeBwrap();
    PidNamespace ns = namespace("AUTO", Optional.of(bwrap.toString()), "/usr/bin:/bin");
    assertEquals(new PidNamespace.Mode(true, false, "bubblewrap 9.9.9"), ns.mode());
    Recording delegate = new Recording();
    SessionTransport contained = ns.around(delegate);
    ServerDescription server = ServerDescription.stdio("s", "sh", "-c", "exit 0");
    List<String> messages = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> messages.add(assertThrows(SessionException.class,
          () -> contained.open(server, "b", ServerMessageHandler.noUser("test"))).getMessage()), "asker-" + i);
      t.start();
      t.join();
    }
    assertEquals(List.of("cotenant-backend-spawner", "cotenant-backend-spawner", "cotenant-backend-spawner"),
        delegate.threads);
    assertEquals(bwrap + " --dev-bind / / --proc /proc --unshare-pid --die-with-parent -- sh -c exit 0", messages.get(0));
  }

  @Test
  void aCommandThatCannotBeFoundStartsAsConfiguredAndFailsWithTheUsualMessage() throws Exception {
    PidNamespace ns = namespace("AUTO", Optional.of(fakeBwrap().toString()), "/usr/bin:/bin");
    Recording delegate = new Recording();
    SessionException e = assertThrows(SessionException.class, () -> ns.around(delegate)
        .open(ServerDescription.stdio("s", "no-such-command-here", "x"), "b", ServerMessageHandler.noUser("test")));
    assertEquals("no-such-command-here x", e.getMessage());
    Path script = Files.writeString(dir.resolve("server.sh"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    ServerDescription relative = ServerDescription.stdio("s", "./server.sh").withCwd(Optional.of(dir.toString()));
    assertTrue(ns.contained(relative, "bwrap").isPresent(), "a relative command is found in the server's directory");
    assertFalse(ns.contained(ServerDescription.stdio("s", "./absent.sh").withCwd(Optional.of(dir.toString())), "bwrap")
        .isPresent());
  }

  @Test
  void withoutBubblewrapBackendsStartAsConfiguredUnlessTheNamespaceIsRequired() throws Exception {
    PidNamespace auto = namespace("AUTO", Optional.empty(), dir.toString());
    assertFalse(auto.mode().contained());
    assertEquals("as configured, without a pid namespace: no bwrap on PATH; install bubblewrap (Debian: apt-get"
        + " install bubblewrap) or name it with cotenant.sandbox.bwrap", auto.mode().describe());
    Recording delegate = new Recording();
    SessionException plain = assertThrows(SessionException.class,
        () -> auto.around(delegate).open(ServerDescription.stdio("s", "sh"), "b", ServerMessageHandler.noUser("test")));
    assertEquals("sh", plain.getMessage());

    PidNamespace required = namespace("REQUIRED", Optional.empty(), dir.toString());
    SessionException refused = assertThrows(SessionException.class,
        () -> required.around(delegate).open(ServerDescription.stdio("s", "sh"), "b", ServerMessageHandler.noUser("test")));
    assertTrue(refused.getMessage().startsWith("backends must start in a pid namespace (cotenant.backends.pid-namespace"
        + "=required), and no bwrap on PATH"), refused.getMessage());

    PidNamespace off = namespace("OFF", Optional.of(fakeBwrap().toString()), dir.toString());
    assertSame(delegate, off.around(delegate));
    SessionTransport remote = (server, label, handler) -> {
      throw new SessionException(SessionException.Kind.START, "remote");
    };
    assertSame(remote, auto.around(remote), "a transport that starts servers elsewhere is left alone");
  }

  @Test
  void theSettingIsReadStrictly() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PidNamespace.fromConfig(
        ProviderConfig.of(Map.of(PidNamespace.KEY, "sometimes")), Map.of()));
    assertEquals("cotenant.backends.pid-namespace must be auto, off or required, got 'sometimes'", e.getMessage());
    assertEquals(new PidNamespace.Mode(false, false, "turned off (cotenant.backends.pid-namespace=off)"),
        PidNamespace.fromConfig(ProviderConfig.of(Map.of(PidNamespace.KEY, "OFF")), Map.of()).mode());
  }
}
