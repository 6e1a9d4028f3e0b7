package dev.cotenant.cli.daemon;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * {@code cotenant connect}: relays one MCP client's stdio session to the daemon. Lines from the
 * client go to the socket as they are, lines from the socket go to the client as they are; the
 * shim only reads each message's {@code id} and {@code method} to know which of the client's
 * requests are still unanswered. When the client closes its input, the shim closes its half of
 * the socket and exits 0 once the daemon has ended the session. When the daemon goes away first
 * (stopped, or killed), every unanswered request is answered with a JSON-RPC error
 * ({@value #INTERRUPTED} "call interrupted"), one line saying why goes to standard error, and the
 * shim exits 1.
 */
public final class Shim {
  /** The error code of a request whose daemon went away: the multiplexer's "call interrupted". */
  public static final int INTERRUPTED = dev.cotenant.gateway.mux.Multiplexer.CALL_INTERRUPTED;

  /**
   * The JVM options a shim runs with (a routed entry carries them): a fast start and a small
   * footprint, since one shim runs per client per server. Measured in {@code docs/performance.md}.
   * The heap may grow to 96 MiB for the largest message ({@value LineChannel#MAX_LINE} bytes).
   */
  public static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms2m",
      "-Xmx96m", "-Xss256k", "-XX:ReservedCodeCacheSize=8m", "-XX:CICompilerCount=1", "-XX:-UsePerfData");

  /** Exit status: the client closed its input. */
  public static final int EXIT_CLIENT_CLOSED = 0;
  /**
   * How long the daemon may take to accept a session: long enough to start a backend and hand
   * over its handshake (an {@code npx} launch, a JVM), short enough that a stopped or hung daemon
   * ends the shim with a reason instead of holding its client forever.
   */
  static final java.time.Duration HELLO_TIMEOUT = java.time.Duration.ofSeconds(120);

  /** Exit status: the daemon could not be reached, refused the session, or went away. */
  public static final int EXIT_DAEMON = 1;

  private final String server;
  private final List<String> configs;
  private final InputStream clientIn;
  private final OutputStream clientOut;
  private final PrintWriter err;
  /** The client's requests not answered yet, by their id's JSON text. */
  private final java.util.Set<String> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean clientClosed;
  /** Why the client side ended the session (a message over the limit); null while it has not. */
  private volatile @Nullable String clientError;

  /**
   * @param server the server's name
   * @param configs absolute paths of configuration files the daemon should look in first
   * @param clientIn the client's messages (standard input)
   * @param clientOut where the client reads (standard output)
   * @param err one line for people when something goes wrong
   */
  public Shim(String server, List<String> configs, InputStream clientIn, OutputStream clientOut, PrintWriter err) {
    this.server = server;
    this.configs = List.copyOf(configs);
    this.clientIn = clientIn;
    this.clientOut = clientOut;
    this.err = err;
  }

  /** Says hello on {@code socket} and relays until one side ends; returns the exit status. */
  public int run(SocketChannel socket) {
    LineChannel daemon = new LineChannel(socket);
    long daemonPid;
    ChannelDeadline deadline = new ChannelDeadline(socket, HELLO_TIMEOUT);
    try (deadline) {
      daemon.writeLine(ShimJson.hello(server, configs));
      byte[] reply = daemon.readLine();
      if (reply == null) {
        return fail("the daemon closed the connection before answering");
      }
      ShimJson.Peek r = ShimJson.peek(reply, List.of("cotenant", "error"), List.of("daemon_pid"));
      if (r == null || !"connected".equals(r.strings()[0])) {
        return fail(r == null || r.strings()[1] == null ? "the daemon refused the session" : r.strings()[1]);
      }
      daemonPid = r.numbers()[0];
    } catch (IOException e) {
      if (deadline.fired()) {
        return fail("the daemon did not answer within " + HELLO_TIMEOUT.toSeconds() + " s: it may be stopped (kill -CONT"
            + " its pid) or hung");
      }
      return fail("the daemon closed the connection before answering (" + e.getMessage() + ")");
    }
    Thread up = new Thread(() -> upstream(daemon, socket), "cotenant-connect-up");
    up.setDaemon(true);
    up.start();
    String why = null;
    try {
      byte[] line;
      while ((line = daemon.readLine()) != null) {
        ShimJson.Peek m = ShimJson.peek(line, List.of(), List.of());
        if (m != null && m.id() != null && m.method() == null) {
          pending.remove(m.id());
        }
        clientOut.write(line);
        clientOut.write('\n');
        clientOut.flush();
      }
    } catch (IOException e) {
      why = e.getMessage();
    }
    if (clientError != null) {
      return fail(clientError);
    }
    if (clientClosed) {
      return EXIT_CLIENT_CLOSED;
    }
    boolean alive = daemonPid > 0 && stillRunning(daemonPid);
    String reason = alive
        ? "the daemon (pid " + daemonPid + ") ended " + server + "'s session"
        : "the daemon (pid " + daemonPid + ") went away";
    for (String id : pending) {
      try {
        clientOut.write(ShimJson.error(id, INTERRUPTED, "call interrupted: " + reason));
        clientOut.write('\n');
      } catch (IOException e) {
        break;
      }
    }
    try {
      clientOut.flush();
    } catch (IOException e) {
      // The client is gone too.
    }
    return fail(reason + (why == null ? "" : " (" + why + ")"));
  }

  /**
   * Whether the daemon still runs once its connection has closed. A killed daemon closes its
   * sockets while it exits, and then stays a zombie until its parent reaps it, which
   * {@link ProcessHandle#isAlive} still counts as alive; so a zombie counts as gone, and a
   * process that is still exiting gets a short while to finish.
   */
  static boolean stillRunning(long pid) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);
    while (true) {
      if (!running(pid)) {
        return false;
      }
      if (System.nanoTime() > deadline) {
        return true;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return true;
      }
    }
  }

  private static boolean running(long pid) {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    try {
      // /proc/PID/stat: "pid (comm) S ..."; the comm may hold spaces and parentheses, the state follows the last ')'.
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
      int close = stat.lastIndexOf(')');
      char state = close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : 'R';
      return state != 'Z' && state != 'X';
    } catch (IOException | RuntimeException e) {
      // No /proc (not Linux): what ProcessHandle said; gone meanwhile: gone.
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  }

  private void upstream(LineChannel daemon, SocketChannel socket) {
    try {
      InputStream in = new BufferedInputStream(clientIn, 64 * 1024);
      ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
      int b;
      while ((b = in.read()) >= 0) {
        if (b != '\n') {
          if (line.size() >= LineChannel.MAX_LINE) {
            // No message that long is read; the session ends, and the shim with it.
            clientError = "the client sent a message longer than " + LineChannel.MAX_LINE + " bytes; the session was ended";
            socket.close();
            return;
          }
          line.write(b);
          continue;
        }
        forward(daemon, line.toByteArray());
        line.reset();
      }
      if (line.size() > 0) {
        forward(daemon, line.toByteArray());
      }
      clientClosed = true;
      socket.shutdownOutput();
    } catch (IOException e) {
      // The daemon is gone: the reading side reports it.
    }
  }

  private void forward(LineChannel daemon, byte[] line) throws IOException {
    if (line.length == 0 || (line.length == 1 && line[0] == '\r')) {
      return;
    }
    ShimJson.Peek m = ShimJson.peek(line, List.of(), List.of());
    if (m != null && m.id() != null && m.method() != null) {
      pending.add(m.id());
    }
    daemon.writeLine(line);
  }

  private int fail(String why) {
    err.println("cotenant connect " + server + ": " + why);
    err.flush();
    return EXIT_DAEMON;
  }

  /** The server's name. */
  public String server() {
    return server;
  }

  /** For tests: the requests not answered yet. */
  int pendingCount() {
    return pending.size();
  }
}
