package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.HazardCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM flushing the ledger in a loop is killed with SIGKILL at random moments; after every kill
 * the file parses and holds exactly the previous or the new content. At least one kill must land
 * inside a write: the writer's temp file, created before the content is written and renamed over
 * the ledger after it, is still there; the ledger is then exactly the previous content.
 */
class CrashSafetyTest {
  static final int KILLS = 50;
  /** Kills beyond {@link #KILLS} spent, at most, waiting for one to land inside a write. */
  static final int MORE_KILLS = 250;
  static final int PREFILL = 3_000;

  @TempDir Path dir;

  @Test
  void aKilledWriterLeavesThePreviousOrTheNewFile() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int midWrite = 0;
    java.util.Set<Path> tempsSeen = new java.util.HashSet<>();
    int kills = 0;
    int lastIndex = -1; // highest s<k> known to be on disk
    try (ChildJvms jvms = new ChildJvms()) {
      for (int kill = 0; kill < KILLS || (midWrite == 0 && kill < KILLS + MORE_KILLS); kill++) {
        kills++;
        Process p = jvms.start(LedgerChild.class, "crash-loop", dir.toString(), String.valueOf(PREFILL));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = out.readLine();
        assertNotNull(first, "child exited before starting (seed " + seed + ")");
        int start = Integer.parseInt(first.substring("start ".length()));
        assertEquals(lastIndex + 1, start, "the child resumes after the last flushed index");
        int wanted = random.nextInt(3); // completed flushes to see before the one that is killed
        int last = start - 1;
        long flushNanos = 20_000_000L;
        int seen = 0;
        for (String line = out.readLine(); ; line = out.readLine()) {
          assertNotNull(line, "child stopped flushing (seed " + seed + ")");
          if (line.startsWith("flushed ")) {
            String[] f = line.split(" ");
            last = Integer.parseInt(f[1]);
            flushNanos = Long.parseLong(f[2]);
            seen++;
          } else if (line.equals("capture") && seen >= wanted) {
            break;
          }
        }
        // A random moment inside this flush, which has just captured its payload and is about to
        // lock, merge, encode and write (a spin, not a sleep: nothing waits on it).
        long until = System.nanoTime() + (long) (random.nextDouble() * 1.2 * flushNanos);
        while (System.nanoTime() < until) {
          Thread.onSpinWait();
        }
        p.toHandle().destroyForcibly(); // SIGKILL; unlike Process.destroyForcibly it leaves the pipes readable
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child did not die");
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.startsWith("flushed ")) {
            last = Integer.parseInt(line.split(" ")[1]);
          }
        }
        // A temp file this kill left behind (the next writer deletes it) is a kill inside a write.
        boolean killedMidWrite;
        try (var s = Files.list(dir)) {
          killedMidWrite =
              s.filter(f -> f.getFileName().toString().endsWith(".tmp")).filter(tempsSeen::add).count() > 0;
        }
        Path file = dir.resolve(FileHazardLedger.FILE_NAME);
        if (!Files.exists(file)) {
          // Killed before the very first flush completed: the previous state is "no file".
          assertEquals(-1, last, "no file although s" + last + " was reported flushed");
          continue;
        }
        byte[] onDisk = Files.readAllBytes(file);
        // Parses, and is byte-for-byte what a clean flush of s0..s<last> or s0..s<last+1> writes.
        LedgerCodec.Result r = LedgerCodec.decode(RecordsJson.MAPPER.readTree(onDisk));
        assertTrue(r instanceof LedgerCodec.Loaded, "after kill " + kill + " the file does not load: " + r);
        boolean previous = java.util.Arrays.equals(onDisk, expected(last));
        boolean next = java.util.Arrays.equals(onDisk, expected(last + 1));
        assertTrue(previous || next, "after kill " + kill + " the file is neither s0..s" + last + " nor s0..s" + (last + 1) + " (seed " + seed + ")");
        lastIndex = previous ? last : last + 1;
        if (killedMidWrite) {
          midWrite++;
          assertTrue(previous, "killed before its rename, the write replaced the file after kill " + kill);
        }
      }
    }
    assertTrue(midWrite > 0, "none of " + kills + " kills landed inside a write (seed " + seed + ")");
    try (var s = Files.list(dir)) {
      assertFalse(s.anyMatch(f -> f.getFileName().toString().startsWith("observed-hazards.json.corrupt")));
    }
    System.out.println("crash safety: " + kills + " kills, " + midWrite + " left a temp file behind (killed mid-write), last index " + lastIndex);
  }

  /** What a clean flush of the prefill and s0..s<last> writes. */
  private static byte[] expected(int last) {
    Map<String, Map<String, LedgerCodec.Obs>> model = new TreeMap<>();
    double t = LedgerChild.CLOCK_MILLIS / 1000.0;
    int leak = 1 << HazardCode.CROSS_SESSION_LEAK.ordinal();
    int unroutable = 1 << HazardCode.UNROUTABLE_SERVER_REQUEST.ordinal();
    if (PREFILL > 0) {
      Map<String, LedgerCodec.Obs> bulk = new TreeMap<>();
      for (int i = 0; i < PREFILL; i++) {
        bulk.put("p" + i, new LedgerCodec.Obs(unroutable, 1, t));
      }
      model.put("bulk", bulk);
    }
    for (int k = 0; k <= last; k++) {
      model.put("s" + k, new TreeMap<>(Map.of("id", new LedgerCodec.Obs(leak, 1, t))));
    }
    return LedgerCodec.encode(model);
  }

  @Test
  void theExpectedContentIsWhatALedgerWrites() throws IOException {
    FileHazardLedger l = FileHazardLedger.open(dir, () -> LedgerChild.CLOCK_MILLIS);
    LedgerChild.prefill(l, PREFILL);
    List<String> names = new ArrayList<>();
    for (int k = 0; k <= 2; k++) {
      l.record("s" + k, "id", HazardCode.CROSS_SESSION_LEAK, 2);
      names.add("s" + k);
    }
    l.flush();
    assertEquals(new String(expected(2), StandardCharsets.UTF_8), Files.readString(l.file()));
  }
}
