package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.channels.Channel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Closes a channel when a deadline passes, so that a blocking read on it (which has no timeout of
 * its own) ends with an exception: what waits for a daemon that accepted a connection and never
 * answers (stopped with SIGSTOP, hung) does not wait forever. {@link #close} before the deadline
 * cancels it; {@link #fired} tells an exception the deadline caused from any other.
 */
final class ChannelDeadline implements AutoCloseable {
  private final AtomicBoolean fired = new AtomicBoolean();
  private final Thread timer;

  ChannelDeadline(Channel channel, Duration after) {
    timer = new Thread(() -> {
      try {
        Thread.sleep(after.toMillis());
        fired.set(true);
        channel.close();
      } catch (InterruptedException | IOException e) {
        // cancelled in time, or the channel was closed already
      }
    }, "cotenant-channel-deadline");
    timer.setDaemon(true);
    timer.start();
  }

  /** True when the deadline passed and closed the channel. */
  boolean fired() {
    return fired.get();
  }

  /** Cancels the deadline. */
  @Override
  public void close() {
    timer.interrupt();
  }
}
