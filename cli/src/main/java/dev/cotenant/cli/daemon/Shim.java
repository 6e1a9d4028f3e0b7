package dev.cotenant.cli.daemon;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.channels.SocketChannel;
import dev.cotenant.cli.route.Launch;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * {@code cotenant connect}: relays one MCP client's stdio session to the daemon. Lines from the
 * client go to the socket as they are, lines from the socket go to the client as they are; the
 * shim only reads each message's {@code id} and {@code method} to know which of the client's
 * requests are still unanswered. When the client closes its input, the shim closes its half of
 * the socket and exits 0 once the daemon has ended the session. When the daemon goes away first
 * (stopped, or killed), every unanswered request is answered with a JSON-RPC error
 * ({@link ErrorCode#CALL_INTERRUPTED} "call interrupted"). A daemon that was stopped, or that ended the
 * session and still runs, ends the shim: one line saying why goes to standard error, and it
 * exits 1. A daemon that died (killed, crashed) is replaced: the session resumes on a new daemon
 * ({@link #run(SocketChannel, Reconnect)}).
 */
public final class Shim {
  /** The error code of a request whose daemon went away: the multiplexer's "call interrupted". */
  public static final int INTERRUPTED = ErrorCode.CALL_INTERRUPTED.code();

  /**
   * The JVM options a shim runs with: those a routed entry carries ({@link Launch#JVM_OPTIONS}),
   * kept here too for what reads them from the jar by this name.
   */
  public static final List<String> JVM_OPTIONS = Launch.JVM_OPTIONS;

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
  /**
   * The client's requests not answered yet: each id, and its JSON text as the client wrote it (an
   * interrupted call is answered under that text). Keyed by {@link RequestId}, so an answer whose
   * id the daemon wrote in another form ({@code 1.0} for {@code 1e0}) still matches.
   */
  private final Map<RequestId, String> pending = new ConcurrentHashMap<>();
  private volatile boolean clientClosed;
  /** Why the client side ended the session (a message over the limit); null while it has not. */
  private volatile @Nullable String clientError;
  /** The client's {@code initialize} line, as it sent it; null before. */
  private volatile byte @Nullable [] initialize;
  /** The reason of the daemon's {@code stopping} notice; null while none came. */
  private volatile @Nullable String stoppedBecause;
  /** Guards {@link #current}, {@link #currentSocket} and {@link #sendingEnded}; waited on while resuming. */
  private final Object sending = new Object();
  private @Nullable LineChannel current;
  private @Nullable SocketChannel currentSocket;
  private boolean sendingEnded;
  /** The top-level fields of a daemon notice: {@code {"cotenant": KIND, "reason": TEXT}}. */
  private static final List<String> NOTICE = List.of("cotenant", "reason", "placement");
  /** False once the daemon said the session is on a backend of its own: it cannot resume. */
  private volatile boolean resumable = true;

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

  /**
   * How a shim reaches a daemon again after its daemon went away: connects to the daemon that
   * runs now, or starts one.
   */
  @FunctionalInterface
  public interface Reconnect {
    /** A connected socket to a daemon. */
    SocketChannel connect() throws IOException, InterruptedException;
  }

  /** How long a shim whose daemon went away tries to resume its session on a new one. */
  static final java.time.Duration RESUME_TIMEOUT = java.time.Duration.ofSeconds(60);

  /** Says hello on {@code socket} and relays until one side ends; returns the exit status. Never resumes. */
  public int run(SocketChannel socket) {
    return run(socket, null);
  }

  /**
   * Says hello on {@code socket} and relays until one side ends; returns the exit status. When the
   * daemon goes away (it is gone, not merely done with the session, and it sent no
   * {@code stopping} notice) after the client's {@code initialize}, every unanswered request is
   * answered {@link ErrorCode#CALL_INTERRUPTED} "call interrupted", and the session resumes on the daemon
   * {@code again} reaches (for at most {@link #RESUME_TIMEOUT}): the hello carries the client's
   * {@code initialize}, nothing else is replayed. A daemon that refuses to resume it (its backend
   * was its own, and its state ended) ends the shim with its reason.
   *
   * @param again how to reach a daemon again; null never resumes
   */
  public int run(SocketChannel socket, @Nullable Reconnect again) {
    LineChannel daemon = new LineChannel(socket);
    long daemonPid = hello(daemon, socket, null);
    if (daemonPid < -1) {
      return EXIT_DAEMON;
    }
    synchronized (sending) {
      current = daemon;
      currentSocket = socket;
    }
    Thread up = new Thread(this::upstream, "cotenant-connect-up");
    up.setDaemon(true);
    up.start();
    while (true) {
      String why = relay(daemon);
      if (clientError != null) {
        return fail(clientError);
      }
      if (clientClosed) {
        // The daemon answers the calls in flight at the client's end of input before it ends the
        // session; any it did not answer (it went away meanwhile) are answered here.
        interruptPending("the daemon (pid " + daemonPid + ") ended the session before answering it");
        return EXIT_CLIENT_CLOSED;
      }
      boolean alive = daemonPid > 0 && stillRunning(daemonPid);
      String reason = stoppedBecause != null ? "the daemon (pid " + daemonPid + ") stopped: " + stoppedBecause
          : alive ? "the daemon (pid " + daemonPid + ") ended " + server + "'s session"
          : "the daemon (pid " + daemonPid + ") went away";
      synchronized (sending) {
        current = null;
      }
      interruptPending(reason);
      if (alive || stoppedBecause != null || again == null || initialize == null || !resumable) {
        endSending();
        return fail(reason + (why == null ? "" : " (" + why + ")") + (alive || stoppedBecause != null || resumable ? ""
            : "; " + server + "'s backend was its own, and its state ended with it: restart " + server + " in the client"));
      }
      err.println("cotenant connect " + server + ": " + reason + "; resuming the session on a new daemon");
      err.flush();
      long resumed = resume(again);
      if (resumed < 0) {
        endSending();
        return EXIT_DAEMON;
      }
      daemonPid = resumed;
      daemon = Objects.requireNonNull(current);
    }
  }

  /**
   * Says hello (with the client's {@code initialize} when resuming); returns the daemon's pid, 0
   * when it did not say, or -2 after printing why it failed.
   */
  private long hello(LineChannel daemon, SocketChannel socket, byte @Nullable [] resume) {
    ChannelDeadline deadline = new ChannelDeadline(socket, HELLO_TIMEOUT);
    try (deadline) {
      daemon.writeLine(ShimJson.hello(server, configs, resume));
      byte[] reply = daemon.readLine();
      if (reply == null) {
        fail("the daemon closed the connection before answering");
        return -2;
      }
      ShimJson.Peek r = ShimJson.peek(reply, List.of("cotenant", "error"), List.of("daemon_pid"));
      if (r == null || !"connected".equals(r.strings()[0])) {
        fail(r == null || r.strings()[1] == null ? "the daemon refused the session" : r.strings()[1]);
        return -2;
      }
      return Math.max(0, r.numbers()[0]);
    } catch (IOException e) {
      if (deadline.fired()) {
        fail("the daemon did not answer within " + HELLO_TIMEOUT.toSeconds() + " s: it may be stopped (kill -CONT"
            + " its pid) or hung");
      } else {
        fail("the daemon closed the connection before answering (" + e.getMessage() + ")");
      }
      return -2;
    }
  }

  /** Relays the daemon's lines to the client until the connection ends; why it ended, when it failed. */
  private @Nullable String relay(LineChannel daemon) {
    try {
      byte[] line;
      while ((line = daemon.readLine()) != null) {
        ShimJson.Peek m = ShimJson.peek(line, NOTICE, List.of());
        if (m != null && m.strings()[0] != null) {
          // A notice of the daemon's own, never a JSON-RPC message: a stop says no new daemon is wanted.
          if ("stopping".equals(m.strings()[0])) {
            stoppedBecause = m.strings()[1] == null ? "asked to stop" : m.strings()[1];
          } else if ("placed".equals(m.strings()[0])) {
            resumable = "shared".equals(m.strings()[2]);
          }
          continue;
        }
        if (m != null && m.requestId() != null && m.method() == null) {
          pending.remove(m.requestId());
        }
        toClient(line);
      }
      return null;
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  /** Resumes on a new daemon; its pid (0 when it did not say), or -1 after printing why not. */
  private long resume(Reconnect again) {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    String last = "no daemon could be reached";
    while (System.nanoTime() < deadline && !clientClosed) {
      SocketChannel socket;
      try {
        socket = again.connect();
      } catch (IOException e) {
        last = e.getMessage();
        sleep(250);
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      LineChannel daemon = new LineChannel(socket);
      long pid = hello(daemon, socket, initialize);
      if (pid < -1) {
        closeQuietly(socket);
        return -1;
      }
      synchronized (sending) {
        current = daemon;
        currentSocket = socket;
        sending.notifyAll();
      }
      err.println("cotenant connect " + server + ": resumed on the daemon (pid " + pid + ")");
      err.flush();
      return pid;
    }
    if (clientClosed) {
      return -1;
    }
    fail("could not resume on a new daemon within " + RESUME_TIMEOUT.toSeconds() + " s: " + last);
    return -1;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(SocketChannel socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closed already.
    }
  }

  /** Answers every unanswered request of the client with "call interrupted: {@code reason}". */
  private void interruptPending(String reason) {
    for (RequestId id : List.copyOf(pending.keySet())) {
      String text = pending.remove(id);
      if (text == null) {
        continue;
      }
      try {
        toClient(ShimJson.error(text, INTERRUPTED, "call interrupted: " + reason));
      } catch (IOException e) {
        break;
      }
    }
  }

  /** One line to the client; the relay and the upstream side both answer it. */
  private void toClient(byte[] line) throws IOException {
    synchronized (clientOut) {
      clientOut.write(line);
      clientOut.write('\n');
      clientOut.flush();
    }
  }

  /** No daemon will take the client's lines any more. */
  private void endSending() {
    synchronized (sending) {
      sendingEnded = true;
      sending.notifyAll();
    }
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

  private void upstream() {
    try {
      InputStream in = new BufferedInputStream(clientIn, 64 * 1024);
      ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
      int b;
      while ((b = in.read()) >= 0) {
        if (b != '\n') {
          if (line.size() >= LineChannel.MAX_LINE) {
            // No message that long is read; the session ends, and the shim with it.
            clientError = "the client sent a message longer than " + LineChannel.MAX_LINE + " bytes; the session was ended";
            synchronized (sending) {
              if (currentSocket != null) {
                currentSocket.close();
              }
            }
            return;
          }
          line.write(b);
          continue;
        }
        forward(line.toByteArray());
        line.reset();
      }
      if (line.size() > 0) {
        forward(line.toByteArray());
      }
      clientClosed = true;
      synchronized (sending) {
        if (currentSocket != null) {
          currentSocket.shutdownOutput();
        }
        sending.notifyAll();
      }
    } catch (IOException e) {
      // The daemon is gone: the reading side reports it.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sends one client line to the daemon of now, waiting while the session resumes on a new one. A
   * request whose line could not be written is answered "call interrupted" (it may have reached the
   * daemon that went away; it is never sent again).
   */
  private void forward(byte[] line) throws InterruptedException {
    if (line.length == 0 || (line.length == 1 && line[0] == '\r')) {
      return;
    }
    ShimJson.Peek m = ShimJson.peek(line, List.of(), List.of());
    RequestId id = m == null || m.method() == null ? null : m.requestId();
    boolean request = id != null;
    if (request && initialize == null && "initialize".equals(m.method())) {
      initialize = line.clone();
    }
    LineChannel to;
    synchronized (sending) {
      while (current == null && !sendingEnded && !clientClosed) {
        sending.wait();
      }
      to = current;
      if (to == null) {
        return;
      }
      if (request) {
        pending.put(id, Objects.requireNonNull(m.id()));
      }
      try {
        to.writeLine(line);
        return;
      } catch (IOException e) {
        // The daemon went away under this line: the relay side notices the end.
      }
    }
    if (request && pending.remove(id) != null) {
      try {
        toClient(ShimJson.error(Objects.requireNonNull(m.id()), INTERRUPTED, "call interrupted: the daemon went away before it was sent"));
      } catch (IOException gone) {
        // The client is gone too.
      }
    }
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
