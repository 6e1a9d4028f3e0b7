package dev.cotenant.cli.daemon;

import dev.cotenant.spi.RecordStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the records when another process changes them ({@code cotenant measure},
 * {@code register}, {@code hazards clear}), so the daemon's next placement rests on the verdict
 * those records give now: every {@value #PERIOD_MS} ms it compares the size and modification
 * time of each file in the records directory with what it saw last, and on a change reloads the
 * hazard ledger (unless it holds observations not yet written) and the pre-flight cache.
 * Concurrency records are read at each placement already.
 *
 * <p>Records that do not live in the directory (a fleet's {@code postgres} stores, written by
 * other replicas on other machines) leave no trace in it: those are re-read every
 * {@value #REMOTE_PERIOD_MS} ms instead, so a hazard another replica observed withholds sharing
 * here within that time.
 */
final class RecordsWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordsWatcher.class);

  static final long PERIOD_MS = 1000;

  /** How often records kept outside the directory are re-read. */
  static final long REMOTE_PERIOD_MS = 5000;

  private final Path directory;
  private final RecordStores stores;
  /** Its own timer, shut down at close; null when it runs on a timer it was given. */
  private final @Nullable ScheduledExecutorService ownTimer;
  private final ScheduledFuture<?> checking;
  private final boolean remote;
  private Map<String, String> seen;
  private long lastRemoteRead = System.nanoTime();

  /**
   * Watches {@code directory}; with {@code remote}, the records live elsewhere and are re-read
   * every {@value #REMOTE_PERIOD_MS} ms whatever the directory shows.
   */
  private final Runnable onReload;

  RecordsWatcher(Path directory, RecordStores stores, boolean remote) {
    this(directory, stores, remote, () -> { });
  }

  /** As above; {@code onReload} runs after each reload (the daemon tells its sharing the records changed). */
  RecordsWatcher(Path directory, RecordStores stores, boolean remote, Runnable onReload) {
    this(directory, stores, remote, onReload, null);
  }

  /**
   * As above, checking on {@code timer} (the daemon's), which it leaves running at close; with a
   * null timer it starts one of its own.
   */
  RecordsWatcher(Path directory, RecordStores stores, boolean remote, Runnable onReload,
      @Nullable ScheduledExecutorService timer) {
    this.onReload = onReload;
    this.directory = directory;
    this.stores = stores;
    this.remote = remote;
    this.seen = fingerprint();
    this.ownTimer = timer == null ? Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-records-watch");
      t.setDaemon(true);
      return t;
    }) : null;
    this.checking = (timer == null ? ownTimer : timer).scheduleWithFixedDelay(this::check, PERIOD_MS, PERIOD_MS,
        TimeUnit.MILLISECONDS);
  }

  private Map<String, String> fingerprint() {
    Map<String, String> f = new TreeMap<>();
    if (!Files.isDirectory(directory)) {
      return f;
    }
    try (Stream<Path> files = Files.list(directory)) {
      files.filter(Files::isRegularFile).forEach(p -> {
        try {
          f.put(p.getFileName().toString(), Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
        } catch (IOException e) {
          f.put(p.getFileName().toString(), "unreadable");
        }
      });
    } catch (IOException e) {
      f.put("", "unlistable");
    }
    return f;
  }

  /** Reloads when the files changed; returns true when it did. */
  boolean check() {
    try {
      Map<String, String> now = fingerprint();
      boolean due = remote && System.nanoTime() - lastRemoteRead >= TimeUnit.MILLISECONDS.toNanos(REMOTE_PERIOD_MS);
      boolean changed = !Objects.equals(now, seen);
      if (!changed && !due) {
        return false;
      }
      seen = now;
      if (due) {
        lastRemoteRead = System.nanoTime();
      }
      if (!stores.hazardLedger().hasUnflushed()) {
        stores.hazardLedger().reload();
      }
      stores.preflightCache().load();
      onReload.run();
      if (changed) {
        LOG.info("the records in {} changed; new sessions are placed by the verdicts they give now", directory);
      }
      return true;
    } catch (RuntimeException e) {
      LOG.warn("re-reading the records in {} failed: {}", directory, e.toString());
      return false;
    }
  }

  @Override
  public void close() {
    checking.cancel(true);
    if (ownTimer != null) {
      ownTimer.shutdownNow();
    }
  }
}
