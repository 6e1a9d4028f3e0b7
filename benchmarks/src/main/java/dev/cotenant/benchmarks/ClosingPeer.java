package dev.cotenant.benchmarks;

import java.time.Duration;

/** A client process a harness starts and ends by closing its input: what {@link DaemonFootprint#closeAndCheck} needs. */
interface ClosingPeer {
  /** What the harness calls it in its messages. */
  String label();

  /** Its process id. */
  long pid();

  /** Closes its input and waits up to {@code bound} for it to exit; false (and killed) when it did not. */
  boolean closeAndAwait(Duration bound) throws InterruptedException;
}
