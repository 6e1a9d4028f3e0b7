package dev.cotenant.cli.daemon;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
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
    Optional<SocketChannel> ch = DaemonStarter.tryConnect(home.socket());
    if (ch.isEmpty()) {
      return Optional.empty();
    }
    try (LineChannel line = new LineChannel(ch.get())) {
      line.writeLine(("{\"cotenant\":" + ShimJson.quote(kind) + ",\"version\":" + Wire.VERSION + "}")
          .getBytes(StandardCharsets.UTF_8));
      byte[] answer = line.readLine();
      if (answer == null) {
        throw new IOException("the daemon at " + home.socket() + " closed the connection without answering");
      }
      Map<String, Object> m = Wire.object(answer);
      if ("refused".equals(m.get("cotenant"))) {
        throw new IOException("the daemon refused: " + m.get("error"));
      }
      return Optional.of(m);
    }
  }
}
