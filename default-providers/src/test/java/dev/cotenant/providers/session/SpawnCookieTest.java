package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.providers.preflight.PreflightHarness;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpawnCookieTest {
  @TempDir Path dir;

  private static boolean holds(String environ, String entry, int maxBytes) throws IOException {
    return ProcTable.holds(new ByteArrayInputStream(environ.getBytes(StandardCharsets.UTF_8)),
        entry.getBytes(StandardCharsets.UTF_8), maxBytes);
  }

  @Test
  void anEntryMatchesOnlyWhole() throws IOException {
    assertTrue(holds("A=1\0COTENANT_SPAWN_ID=ab\0B=2\0", "COTENANT_SPAWN_ID=ab", 1 << 20));
    assertTrue(holds("COTENANT_SPAWN_ID=ab\0", "COTENANT_SPAWN_ID=ab", 1 << 20), "the first entry");
    assertFalse(holds("A=1\0COTENANT_SPAWN_ID=abc\0", "COTENANT_SPAWN_ID=ab", 1 << 20), "a longer value");
    assertFalse(holds("XCOTENANT_SPAWN_ID=ab\0", "COTENANT_SPAWN_ID=ab", 1 << 20), "a longer name");
    assertFalse(holds("A=COTENANT_SPAWN_ID=ab\0", "COTENANT_SPAWN_ID=ab", 1 << 20), "inside a value");
    assertFalse(holds("", "COTENANT_SPAWN_ID=ab", 1 << 20), "a zombie's empty environment");
  }

  @Test
  void anEntryAcrossEveryChunkBoundaryIsFoundAndOneBeyondTheBoundIsNot() throws IOException {
    String entry = "COTENANT_SPAWN_ID=0123456789abcdef";
    for (int pad = 16 * 1024 - entry.length() - 4; pad <= 16 * 1024 + 4; pad++) {
      String environ = "P=" + "x".repeat(pad) + "\0" + entry + "\0Z=1\0";
      assertTrue(holds(environ, entry, 1 << 20), "padding " + pad);
    }
    String far = "P=" + "x".repeat(100_000) + "\0" + entry + "\0";
    assertTrue(holds(far, entry, 200_000));
    assertFalse(holds(far, entry, 50_000), "read no further than the bound");
  }

  @Test
  void aStatLineIsReadFromItsLastParenthesis() {
    String line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 184\n";
    assertEquals(Optional.of(new ProcTable.Stat('S', 1, 987654)), ProcTable.parseStat(line));
    assertTrue(ProcTable.parseStat(line.replace(") S ", ") Z ")).orElseThrow().gone());
    assertEquals(Optional.empty(), ProcTable.parseStat("4242 (short) S 1 2"));
    assertEquals(Optional.empty(), ProcTable.parseStat("garbage"));
  }

  @Test
  void everySpawnCarriesItsOwnCookieAndTheDescriptionIsUntouched() throws Exception {
    Path seen = dir.resolve("seen");
    ServerDescription server = ServerDescription.stdio("cookie", "sh", "-c",
        "echo \"$COTENANT_SPAWN_ID\" >> " + PreflightHarness.shQuote(seen.toString()) + "; exec sleep 1000")
        .withEnv(Map.of("KEEP", "1"));
    StdioSessionTransport t = new StdioSessionTransport(PreflightHarness.sessionSettings());
    for (int i = 1; i <= 2; i++) {
      int spawned = i;
      try (ServerSession s = t.open(server, "cookie", ServerMessageHandler.noUser("none"))) {
        waitFor(() -> lines(seen).size() == spawned);
      }
    }
    List<String> cookies = lines(seen);
    assertEquals(2, cookies.size(), cookies.toString());
    assertTrue(cookies.get(0).matches("[0-9a-f]{32}"), cookies.get(0));
    assertNotEquals(cookies.get(0), cookies.get(1));
    assertEquals(Map.of("KEEP", "1"), server.env(), "the description (and so the launch identity) is unchanged");
  }

  @Test
  void carriersAreFoundOutsideTheTreeAndZombiesAreNot() throws Exception {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    SpawnCookie cookie = SpawnCookie.create();
    // The shell leaves a child behind (sleep 0 exits at once, and the sleep the shell becomes
    // never reaps it: a zombie with the cookie) and a grandchild out of its tree.
    ProcessBuilder pb = new ProcessBuilder("sh", "-c", "(exec sleep 1000 &); sleep 0 & exec sleep 1000");
    cookie.addTo(pb.environment());
    Process p = pb.start();
    cookie.spawned(p.pid());
    ProcessBuilder unmarked = new ProcessBuilder("sleep", "1000");
    Process other = unmarked.start();
    try {
      // The zombie's pid is taken when it is seen: a later scan of the children may miss it.
      java.util.concurrent.atomic.AtomicLong zombie = new java.util.concurrent.atomic.AtomicLong(-1);
      waitFor(() -> {
        List<Long> found = pids(cookie.carriers());
        Set<Long> tree = new HashSet<>(pids(p.descendants().toList()));
        tree.add(p.pid());
        zombieChild(p).ifPresent(zombie::set);
        return found.size() == 2 && found.contains(p.pid()) && found.stream().anyMatch(pid -> !tree.contains(pid))
            && zombie.get() > 0;
      });
      List<Long> found = pids(cookie.carriers());
      assertFalse(found.contains(zombie.get()), "a zombie is not a carrier");
      assertFalse(found.contains(other.pid()), "a process without the cookie is not a carrier");
      assertFalse(found.contains(ProcessHandle.current().pid()));
      for (ProcessHandle h : cookie.carriers()) {
        h.destroyForcibly();
      }
      waitFor(() -> cookie.carriers().isEmpty());
    } finally {
      p.destroyForcibly();
      other.destroyForcibly();
      cookie.carriers().forEach(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void aSweepSignalsEveryCarrierParentsFirstAndWhatClearedTheCookieBelowThem() throws Exception {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    SpawnCookie cookie = SpawnCookie.create();
    // p (a carrier) has a carrier child c; o is a carrier out of the tree, whose child e cleared
    // its environment (env -i) and so carries nothing. Each records its pid in $D/<name>.
    ProcessBuilder pb = new ProcessBuilder("sh", "-c",
        "(sh -c 'env -i sleep 1000 & echo $! > \"$D/e\"; exec sleep 1000' & echo $! > \"$D/o\");"
            + " sleep 1000 & echo $! > \"$D/c\"; exec sleep 999");
    pb.environment().put("D", dir.toString());
    cookie.addTo(pb.environment());
    Process p = pb.start();
    cookie.spawned(p.pid());
    try {
      waitFor(() -> lines(dir.resolve("o")).size() + lines(dir.resolve("c")).size() + lines(dir.resolve("e")).size() == 3);
      long o = Long.parseLong(lines(dir.resolve("o")).get(0));
      long c = Long.parseLong(lines(dir.resolve("c")).get(0));
      long e = Long.parseLong(lines(dir.resolve("e")).get(0));
      waitFor(() -> pids(cookie.carriers()).containsAll(List.of(p.pid(), c, o)));
      assertFalse(pids(cookie.carriers()).contains(e), "env -i cleared the cookie");

      List<Long> signalled = new ArrayList<>();
      // Kills sweep returning an empty list (line 174 at the time): it returns what it signalled, in order.
      assertEquals(signalled, pids(cookie.sweep(h -> signalled.add(h.pid()))));
      assertTrue(signalled.containsAll(List.of(p.pid(), c, o, e)), signalled.toString());
      assertTrue(signalled.indexOf(p.pid()) < signalled.indexOf(c), "the parent first: " + signalled);
      assertTrue(signalled.indexOf(o) < signalled.indexOf(e), "the carrier before what hangs below it: " + signalled);
      assertEquals(signalled.size(), new HashSet<>(signalled).size(), "each once: " + signalled);
      assertFalse(signalled.contains(ProcessHandle.current().pid()));
    } finally {
      cookie.sweep(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    waitFor(() -> cookie.carriers().isEmpty());
  }

  /** Kills {@code entry}, {@code value} and {@code toString} returning "": the entry is the variable's name and the value. */
  @Test
  void theEntryIsTheVariableAndItsRandomValue() {
    SpawnCookie cookie = SpawnCookie.create();
    assertTrue(cookie.value().matches("[0-9a-f]{32}"), cookie.value());
    assertEquals(SpawnCookie.NAME + "=" + cookie.value(), cookie.entry());
    assertEquals(cookie.entry(), cookie.toString());
    assertFalse(cookie.value().equals(SpawnCookie.create().value()));
  }

  private static List<Long> pids(List<ProcessHandle> handles) {
    return handles.stream().map(ProcessHandle::pid).toList();
  }

  private static Optional<Long> zombieChild(Process p) {
    return p.children().map(ProcessHandle::pid)
        .filter(pid -> ProcTable.stat(pid).map(ProcTable.Stat::gone).orElse(false)).findFirst();
  }

  private static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void waitFor(BooleanSupplier condition) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < until, "timed out waiting");
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
