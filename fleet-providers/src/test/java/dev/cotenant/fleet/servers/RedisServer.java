package dev.cotenant.fleet.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real {@code redis-server} on a free port of 127.0.0.1, with no persistence, started from the
 * machine's binary ({@code .ci/run} installs Debian's {@code redis-server} when it is missing).
 * {@link #close()} stops it and checks that no process of it is left.
 */
public final class RedisServer extends LocalServer {
  private final Path log;

  private RedisServer() throws IOException {
    super("cotenant-redis");
    this.log = directory.resolve("redis.log");
  }

  /** Starts a fresh server and waits until it answers {@code PING}. */
  public static RedisServer start() throws IOException {
    RedisServer r = new RedisServer();
    r.launch();
    return r;
  }

  private static String binary() {
    for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "redis-server is not installed: the fleet tests start a real Redis. Install Debian's package "
            + "(apt-get install redis-server), as .ci/run does");
  }

  private void launch() throws IOException {
    process = new ProcessBuilder(binary(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", directory.toString(), "--protected-mode", "yes")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited with " + process.exitValue() + ": " + tail(log));
      }
      if (pings()) {
        return;
      }
      sleep(25);
    }
    stop(Duration.ofSeconds(5));
    throw new IllegalStateException("redis-server did not answer PING in 30 s: " + tail(log));
  }

  private boolean pings() {
    try {
      return command("PING").startsWith("+PONG");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Sends one command in the inline protocol and returns the first reply line (with a bulk
   * reply's value on the following line): enough for the tests to read Redis itself, not through
   * the limiter under test.
   */
  public String command(String... words) throws IOException {
    try (Socket s = send(words)) {
      InputStream in = s.getInputStream();
      String first = line(in);
      if (first.startsWith("$") && !first.equals("$-1")) {
        return first + "\n" + line(in);
      }
      return first;
    }
  }

  /**
   * Sends one command and returns its whole reply as text: a bulk string's value, all its lines
   * (such as {@code CLIENT LIST}'s), an array's bulk strings one per line, or any other reply's
   * line.
   */
  public String bulk(String... words) throws IOException {
    try (Socket s = send(words)) {
      InputStream in = s.getInputStream();
      String first = line(in);
      if (!first.startsWith("*")) {
        return value(in, first);
      }
      StringBuilder b = new StringBuilder();
      for (int i = Integer.parseInt(first.substring(1)); i > 0; i--) {
        b.append(value(in, line(in))).append('\n');
      }
      return b.toString();
    }
  }

  private Socket send(String... words) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      StringBuilder req = new StringBuilder("*").append(words.length).append("\r\n");
      for (String w : words) {
        byte[] b = w.getBytes(StandardCharsets.UTF_8);
        req.append('$').append(b.length).append("\r\n").append(w).append("\r\n");
      }
      out.write(req.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** A bulk string's value after its {@code $N} header; any other reply's line as it is. */
  private static String value(InputStream in, String header) throws IOException {
    if (!header.startsWith("$") || header.equals("$-1")) {
      return header;
    }
    int n = Integer.parseInt(header.substring(1));
    byte[] b = in.readNBytes(n + 2);
    if (b.length != n + 2) {
      throw new IOException("the reply ended inside a bulk string of " + n + " bytes");
    }
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  /** The integer reply of a command such as {@code ZCARD key}. */
  public long integer(String... words) throws IOException {
    String reply = command(words);
    if (!reply.startsWith(":")) {
      throw new IOException("not an integer reply to " + String.join(" ", words) + ": " + reply);
    }
    return Long.parseLong(reply.substring(1).strip());
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  /** {@code redis://127.0.0.1:PORT}. */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** Starts the server again on the same port after {@link #kill()}. */
  public void restart() throws IOException {
    launch();
  }

  @Override
  public void close() {
    try {
      stop(Duration.ofSeconds(10));
    } finally {
      deleteTree(directory);
    }
  }
}
