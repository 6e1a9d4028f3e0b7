package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Asks the running daemon of a home something over its socket ({@code status}, {@code stop}):
 * one hello line, one answer line.
 */
public final class DaemonControl {
  private DaemonControl() {}

  /**
   * The daemon's answer to {@code kind}, or empty when no daemon runs for {@code home}.
   *
   * @throws IOException when the daemon cannot be reached (another user's socket) or answers nothing
   */
  public static Optional<Map<String, Object>> ask(CotenantHome home, String kind) throws IOException {
    return ask(home, kind, ANSWER_TIMEOUT);
  }

  /** How long a daemon may take to answer {@code status} or {@code stop} before it is taken for stopped or hung. */
  public static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

  /**
   * As {@link #ask(CotenantHome, String)}, waiting at most {@code timeout} for the answer: a daemon
   * stopped with SIGSTOP, or hung, still accepts connections (the kernel queues them) but never
   * answers; then the connection is closed and an {@link IOException} says so.
   */
  public static Optional<Map<String, Object>> ask(CotenantHome home, String kind, Duration timeout) throws IOException {
    Optional<SocketChannel> ch = DaemonStarter.tryConnect(home.socket());
    if (ch.isEmpty()) {
      return Optional.empty();
    }
    ChannelDeadline deadline = new ChannelDeadline(ch.get(), timeout);
    String silent = "the daemon at " + home.socket() + " did not answer within " + Math.max(1, timeout.toSeconds())
        + " s: it may be stopped (kill -CONT its pid) or hung (" + home.state() + " names its pid)";
    try (LineChannel line = new LineChannel(ch.get())) {
      byte[] answer;
      try {
        line.writeLine(("{\"cotenant\":" + ShimJson.quote(kind) + ",\"version\":" + Wire.VERSION + "}")
            .getBytes(StandardCharsets.UTF_8));
        answer = line.readLine();
      } catch (IOException e) {
        if (deadline.fired()) {
          throw new IOException(silent);
        }
        throw e;
      }
      if (answer == null) {
        if (deadline.fired()) {
          throw new IOException(silent);
        }
        throw new IOException("the daemon at " + home.socket() + " closed the connection without answering");
      }
      Map<String, Object> m = Wire.object(answer);
      if ("refused".equals(m.get("cotenant"))) {
        throw new IOException("the daemon refused: " + m.get("error"));
      }
      return Optional.of(m);
    } finally {
      deadline.close();
    }
  }
}
