package dev.cotenant.cli.daemon;

import java.util.function.LongSupplier;

/**
 * Gives the heap back after a burst. A daemon that relayed a few large messages grew its heap to
 * hold them; with the serial collector the heap shrinks only at a full collection, and a daemon
 * that goes quiet afterwards may not have one for hours, keeping tens of MiB it no longer needs
 * (measured in docs/performance.md). Run every {@value #PERIOD_SECONDS} s on the daemon's timer,
 * this asks for a full collection when the committed heap has grown by more than
 * {@value #GROWTH_MIB} MiB since the last one it asked for (or since the start): the collector
 * then shrinks the heap to what the daemon's JVM options leave free above what is live
 * ({@link DaemonStarter#DAEMON_JVM_OPTIONS}). A heap that does not grow is never collected here.
 * Not thread-safe: one timer runs it.
 */
final class HeapTrim implements Runnable {
  /** How often the heap is looked at. */
  static final long PERIOD_SECONDS = 60;
  /** How much the committed heap may grow before a collection is asked for. */
  static final long GROWTH_MIB = 16;

  private final LongSupplier committed;
  private final Runnable collect;
  private long baseline;

  /**
   * @param committed the committed heap now, in bytes
   * @param collect a full collection
   */
  HeapTrim(LongSupplier committed, Runnable collect) {
    this.committed = committed;
    this.collect = collect;
    this.baseline = committed.getAsLong();
  }

  /** This JVM's heap ({@link Runtime#totalMemory}), collected with {@link System#gc}. */
  static HeapTrim ofThisJvm() {
    return new HeapTrim(() -> Runtime.getRuntime().totalMemory(), System::gc);
  }

  @Override
  public void run() {
    long now = committed.getAsLong();
    if (now > baseline + (GROWTH_MIB << 20)) {
      collect.run();
      baseline = committed.getAsLong();
    } else if (now < baseline) {
      // It shrank at a collection of its own: grown from here on counts.
      baseline = now;
    }
  }
}
