package dev.cotenant.benchmarks;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HazardCode;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The durable records' costs (docs/records.md): {@code record} on the hot path (goal: median at most
 * 200 ns), flushing a ledger of 10,000 identities and loading a 10,000-row pre-flight cache
 * (goal: at most 100 ms each). Sample-time mode, so JMH reports the median as {@code p0.50}.
 */
@BenchmarkMode(Mode.SampleTime)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RecordsBenchmark {
  static final int IDENTITIES = 10_000;
  static final int ROWS = 10_000;

  /** A ledger already holding the identities {@code record} hits, so it measures the steady state. */
  @State(Scope.Thread)
  public static class RecordState {
    Path dir;
    FileHazardLedger ledger;
    String[] names = new String[1024];
    String[] identities = new String[1024];
    int i;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Files.createTempDirectory("cotenant-bench-record");
      ledger = FileHazardLedger.open(dir);
      for (int k = 0; k < names.length; k++) {
        names[k] = "server-" + (k % 64);
        identities[k] = ExecutionIdentity.sha256("identity-" + k);
        ledger.record(names[k], identities[k], HazardCode.UNROUTABLE_SERVER_REQUEST, 2);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      delete(dir);
    }
  }

  /** A ledger of 10,000 identities on disk; each flush has one new observation to write. */
  @State(Scope.Thread)
  public static class FlushState {
    Path dir;
    FileHazardLedger ledger;
    int i;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Files.createTempDirectory("cotenant-bench-flush");
      ledger = FileHazardLedger.open(dir);
      for (int k = 0; k < IDENTITIES; k++) {
        ledger.record("server-" + (k % 100), ExecutionIdentity.sha256("identity-" + k), HazardCode.values()[k % 3], 2);
      }
      ledger.flush();
    }

    @Setup(Level.Invocation)
    public void dirty() {
      ledger.record("server-" + (i % 100), ExecutionIdentity.sha256("identity-" + (i % IDENTITIES)), HazardCode.CROSS_SESSION_LEAK, 2);
      i++;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      delete(dir);
    }
  }

  /** A pre-flight cache file of 10,000 rows, half of them carrying a handshake. */
  @State(Scope.Thread)
  public static class CacheState {
    Path dir;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Files.createTempDirectory("cotenant-bench-cache");
      FilePreflightCache cache = FilePreflightCache.open(dir);
      for (int k = 0; k < ROWS; k++) {
        String name = "server-" + k;
        String id = name + "\0" + ExecutionIdentity.sha256("c" + k) + "\0" + ExecutionIdentity.sha256("e" + k)
            + "\0/usr/local/bin/node|123456|2026-01-01T00:00:00Z\0" + ExecutionIdentity.PREFLIGHT_SCHEMA;
        cache.put(
            new PreflightRecord(
                name, id, true, k % 7 == 0, k % 7 == 0 ? List.of("tools") : List.of(), 1.7e9 + k,
                Optional.of("1." + k), Optional.empty()));
        if (k % 3 == 0) {
          cache.markApplied(name);
        }
      }
      cache.flush();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      delete(dir);
    }
  }

  /** The hot path: one observation into an existing cell. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  public boolean record(RecordState s) {
    int k = s.i++ & 1023;
    return s.ledger.record(s.names[k], s.identities[k], HazardCode.UNATTRIBUTABLE_NOTIFICATION, 2);
  }

  /** Lock, re-read, merge, encode and atomically replace a 10,000-identity ledger. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Measurement(iterations = 5, time = 4)
  public boolean flush10kIdentities(FlushState s) throws IOException {
    s.ledger.flush();
    return s.ledger.hasUnflushed();
  }

  /** Open (read and apply every reading rule to) a 10,000-row cache. */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public PreflightCache.Snapshot load10kRowCache(CacheState s) {
    return FilePreflightCache.open(s.dir).snapshot();
  }

  static void delete(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
