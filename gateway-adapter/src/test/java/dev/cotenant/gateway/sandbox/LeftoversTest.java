package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep of leftover private directories against what a surviving server can do to them: swap
 * a directory for a symbolic link to one it could only read, again and again while the sweep
 * runs; and keep running in a directory whose maker is gone.
 */
class LeftoversTest {
  @TempDir Path temp;
  @TempDir Path precious;

  /** A pid no process has: one that ran and was waited for. */
  private static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    return p.pid();
  }

  private static long count(Path dir) throws Exception {
    try (Stream<Path> list = Files.list(dir)) {
      return list.count();
    }
  }

  /**
   * Kills the mutant that removes by walking paths ({@code Files.walk} and {@code deleteIfExists}
   * per path, as the sweep did): a link swapped in between the walk's look and its removal leads
   * it into {@code precious}.
   */
  @Test
  void aSweepNeverFollowsALinkSwappedInWhileItRuns() throws Exception {
    for (int i = 0; i < 2_000; i++) {
      Files.writeString(precious.resolve("f" + i), "keep");
    }
    Path leftover = Files.createDirectory(temp.resolve(SandboxLayout.PREFIX + deadPid() + "-x"));
    List<Path> dirs = new ArrayList<>();
    for (int d = 0; d < 20; d++) {
      Path dir = Files.createDirectories(leftover.resolve("tmp/d" + d));
      for (int i = 0; i < 100; i++) {
        Files.writeString(dir.resolve("f" + i), "mine");
      }
      dirs.add(dir);
    }
    // The survivor: swaps each directory for a link to precious and back, as fast as it can.
    List<String> command = new ArrayList<>(List.of("python3", "-c", """
        import os, sys
        target, dirs = sys.argv[1], sys.argv[2:]
        print("ready", flush=True)
        while True:
            for d in dirs:
                try:
                    os.rename(d, d + ".real"); os.symlink(target, d)
                    os.unlink(d); os.rename(d + ".real", d)
                except OSError:
                    pass
        """, precious.toString()));
    dirs.forEach(d -> command.add(d.toString()));
    Process survivor = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      assertEquals("ready", new BufferedReader(new InputStreamReader(survivor.getInputStream(), StandardCharsets.UTF_8))
          .readLine());
      for (int round = 0; round < 20 && Files.exists(leftover); round++) {
        Leftovers.sweep(temp, SandboxLayout.PREFIX);
      }
    } finally {
      survivor.destroyForcibly();
      survivor.waitFor(30, TimeUnit.SECONDS);
    }
    assertEquals(2_000, count(precious), "the sweep removed files it reached through a link");
    Leftovers.sweep(temp, SandboxLayout.PREFIX);
    assertFalse(Files.exists(leftover), "the leftover itself is removed");
    assertEquals(2_000, count(precious));
  }

  /**
   * Kills the mutant that judges a leftover by its maker's pid alone: the sandbox's processes still
   * run, and their directory must stay.
   */
  @Test
  void aDirectoryWhoseSandboxStillRunsIsNotSweptWhenItsMakerIsGone() throws Exception {
    SandboxLayout.Launch launch = new SandboxLayout(SandboxBoundaryTest.bwrap(), false, temp, temp,
        new HostBoundary(List.of(), Map.of())).prepare(ServerDescription.stdio("s", "sh", "-c", "echo up; exec cat"),
        List.of());
    List<String> command = new ArrayList<>(List.of(launch.server().command()));
    command.addAll(launch.server().args());
    Process server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      assertEquals("up", new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))
          .readLine());
      // As if the process that made it had been killed: its name now carries a pid that is gone.
      Path orphaned = Files.move(launch.root(), temp.resolve(SandboxLayout.PREFIX + deadPid() + "-orphaned"));
      Leftovers.sweep(temp, SandboxLayout.PREFIX);
      assertTrue(Files.isDirectory(orphaned.resolve("home")), "swept while its sandbox runs");

      server.getOutputStream().close();
      assertTrue(server.waitFor(60, TimeUnit.SECONDS));
      Leftovers.sweep(temp, SandboxLayout.PREFIX);
      assertFalse(Files.exists(orphaned), "once the sandbox is gone, the leftover is swept");
    } finally {
      server.destroyForcibly();
      server.descendants().forEach(ProcessHandle::destroyForcibly);
    }
  }
}
