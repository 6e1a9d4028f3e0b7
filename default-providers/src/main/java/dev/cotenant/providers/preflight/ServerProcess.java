package dev.cotenant.providers.preflight;

import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.SessionException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * One spawned server and its three pipes: newline-delimited JSON-RPC on stdin/stdout, stderr
 * drained on its own thread (keeping only a short tail for failure messages). A reader thread
 * parses stdout under every bound and hands messages to {@link #next}. Teardown: close stdin,
 * wait, SIGTERM the process and every descendant, wait, SIGKILL. Used only by
 * {@link StdioSession}.
 */
final class ServerProcess {
  /** What the stdout reader hands over. */
  sealed interface Event {}

  /** A JSON object from stdout, as plain JSON. */
  record Message(Map<String, Object> json) implements Event {}

  /** The reader stopped: a bound was exceeded or the output stopped being usable. */
  record Fatal(String reason) implements Event {}

  /** stdout closed. */
  record Eof() implements Event {}

  /**
   * How the process ended, read once: {@code how} is {@code "exited with status N"} or
   * {@code "closed stdout"}, {@code stderr} the last line it wrote there (possibly empty).
   */
  record Exit(String how, String stderr) {
    /** The failure for a request or write that {@code when} names, e.g. {@code "before answering tools/list"}. */
    SessionException failure(String when) {
      StringBuilder sb = new StringBuilder(how).append(' ').append(when);
      if (!stderr.isEmpty()) {
        sb.append("; stderr: ").append(LogSafe.escape(stderr, 160));
      }
      return new SessionException(SessionException.Kind.EXITED, sb.toString());
    }
  }

  private static final int STDERR_TAIL = 2048;

  private final Process process;
  private final PreflightSettings settings;
  private final OutputStream stdin;
  private final BlockingQueue<Event> inbox = new LinkedBlockingQueue<>();
  private final JsonMapper mapper;
  private final byte[] stderrTail = new byte[STDERR_TAIL];
  private int stderrTailLen;
  private final Set<ProcessHandle> known = new LinkedHashSet<>();
  private final AtomicBoolean tornDown = new AtomicBoolean();
  private final Thread reader;
  private final Thread drainer;

  private ServerProcess(Process process, PreflightSettings settings, JsonMapper mapper, String label) {
    this.process = process;
    this.settings = settings;
    this.stdin = process.getOutputStream();
    this.mapper = mapper;
    this.reader = daemon(this::readStdout, "cotenant-session-stdout-" + label);
    this.drainer = daemon(this::drainStderr, "cotenant-session-stderr-" + label);
    reader.start();
    drainer.start();
  }

  /** The mapper that enforces the settings' nesting and size bounds; thread-safe, made once per session transport. */
  static JsonMapper mapper(PreflightSettings settings) {
    StreamReadConstraints constraints = StreamReadConstraints.builder()
        .maxNestingDepth(settings.maxDepth())
        .maxDocumentLength(settings.maxLineBytes())
        .maxStringLength(settings.maxLineBytes())
        .maxNameLength(64 * 1024)
        .maxNumberLength(1000)
        .build();
    JsonFactory factory = JsonFactory.builder().streamReadConstraints(constraints).build();
    return JsonMapper.builder(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  }

  /**
   * Starts the server the description names, with its env on top of this process's env and in
   * its working directory. Never mutates the description.
   *
   * @throws SessionException of kind {@code START}, with a reason naming the command or directory
   */
  static ServerProcess start(ServerDescription server, PreflightSettings settings, JsonMapper mapper, String label)
      throws SessionException {
    List<String> command = new ArrayList<>();
    command.add(server.command());
    command.addAll(server.args());
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(server.env());
    if (server.cwd().isPresent()) {
      File dir = new File(server.cwd().get());
      if (!dir.isDirectory()) {
        throw new SessionException(SessionException.Kind.START,
            "working directory not found: " + LogSafe.escape(server.cwd().get(), 120));
      }
      pb.directory(dir);
    }
    try {
      return new ServerProcess(pb.start(), settings, mapper, label);
    } catch (IOException | RuntimeException e) {
      throw new SessionException(SessionException.Kind.START, startReason(server, e));
    }
  }

  private static String startReason(ServerDescription server, Exception e) {
    String cmd = LogSafe.escape(server.command(), 120);
    String msg = String.valueOf(e.getMessage());
    if (msg.contains("error=2,")) {
      return "command not found: " + cmd;
    }
    if (msg.contains("error=13,")) {
      return "command not executable: " + cmd;
    }
    int cut = msg.indexOf("error=");
    return "could not start " + cmd + ": " + LogSafe.escape(cut >= 0 ? msg.substring(cut) : msg, 120);
  }

  /** The process's pid. */
  long pid() {
    return process.pid();
  }

  /** True while the process runs. */
  boolean alive() {
    return process.isAlive();
  }

  /**
   * Writes one JSON-RPC message (plain JSON values, {@link Json#NULL} written as {@code null}) and
   * a newline; a closed pipe is the server having gone, reported as {@link #exited} with
   * {@code when}.
   */
  void send(Map<String, Object> message, String when) throws SessionException {
    byte[] bytes = mapper.writeValueAsBytes(JsonRpc.thaw(message));
    try {
      synchronized (stdin) {
        stdin.write(bytes);
        stdin.write('\n');
        stdin.flush();
      }
    } catch (IOException e) {
      throw exited(when);
    }
  }

  /** The next event, or empty when nothing arrived before {@code deadlineNanos}. */
  Optional<Event> next(long deadlineNanos) throws InterruptedException {
    long wait = deadlineNanos - System.nanoTime();
    if (wait <= 0) {
      return Optional.ofNullable(inbox.poll());
    }
    return Optional.ofNullable(inbox.poll(wait, TimeUnit.NANOSECONDS));
  }

  /** A failure naming how the process ended and {@code when}, with the tail of what it wrote to stderr. */
  SessionException exited(String when) {
    return exit().failure(when);
  }

  /**
   * How the process ended (waiting briefly for its exit status), with the last line it wrote to
   * stderr.
   */
  Exit exit() {
    String how;
    try {
      how = process.waitFor(200, TimeUnit.MILLISECONDS) ? "exited with status " + process.exitValue() : "closed stdout";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      how = "closed stdout";
    }
    // What it wrote to stderr just before exiting may still be in the pipe: let the drainer finish.
    try {
      drainer.join(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new Exit(how, stderrLastLine());
  }

  /** The last non-blank line the server wrote to stderr, possibly cut. */
  String stderrLastLine() {
    String text;
    synchronized (stderrTail) {
      text = new String(stderrTail, 0, stderrTailLen, StandardCharsets.UTF_8);
    }
    String[] lines = text.split("\n");
    for (int i = lines.length - 1; i >= 0; i--) {
      if (!lines[i].isBlank()) {
        return lines[i].strip();
      }
    }
    return "";
  }

  /** The process and every descendant seen so far that is still alive (no process-table scan). */
  List<ProcessHandle> liveProcesses() {
    List<ProcessHandle> out = new ArrayList<>();
    synchronized (known) {
      known.add(process.toHandle());
      for (ProcessHandle h : known) {
        if (h.isAlive()) {
          out.add(h);
        }
      }
    }
    return out;
  }

  /**
   * Adds the process's current descendants to the known set. A scan reads the whole process
   * table, so it runs only while the process is alive (afterwards its children are reparented
   * and no longer its descendants): once before stdin closes, and again before each signal.
   */
  private void remember() {
    if (!process.isAlive()) {
      return;
    }
    synchronized (known) {
      known.add(process.toHandle());
      try {
        process.descendants().forEach(known::add);
      } catch (RuntimeException e) {
        // The process table could not be read; the handles already known still get signalled.
      }
    }
  }

  /**
   * Ends the process and every descendant: close stdin, wait, SIGTERM all, wait, SIGKILL all,
   * wait. Descendants seen before stdin closed are signalled even when the process itself has
   * exited and left them behind. Idempotent. When the calling thread is interrupted the waits are
   * skipped (straight to SIGKILL) and the interrupt is restored.
   */
  void teardown() {
    if (!tornDown.compareAndSet(false, true)) {
      return;
    }
    remember();
    boolean interrupted = Thread.interrupted();
    try {
      try {
        stdin.close();
      } catch (IOException e) {
        // Already closed by the server's exit.
      }
      if (!interrupted) {
        interrupted = !waitGone(settings.stdinCloseWait().toMillis());
      }
      if (!liveProcesses().isEmpty()) {
        remember();
        for (ProcessHandle h : liveProcesses()) {
          h.destroy();
        }
        if (!interrupted) {
          interrupted = !waitGone(settings.termWait().toMillis());
        }
      }
      kill();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** SIGKILL everything still alive and wait (uninterruptibly, bounded) for it to vanish. */
  void kill() {
    remember();
    List<ProcessHandle> alive = liveProcesses();
    if (alive.isEmpty()) {
      return;
    }
    for (ProcessHandle h : alive) {
      h.destroyForcibly();
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(settings.killWait().toMillis(), 100));
    boolean interrupted = false;
    for (ProcessHandle h : alive) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        h.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException | TimeoutException e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until every known process is gone; false when interrupted. */
  private boolean waitGone(long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    for (ProcessHandle h : liveProcesses()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      CompletableFuture<ProcessHandle> exit = h.onExit();
      try {
        exit.get(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        return false;
      } catch (ExecutionException | TimeoutException e) {
        return true;
      }
    }
    return true;
  }

  private void readStdout() {
    BoundedLineReader lines = new BoundedLineReader(process.getInputStream(), settings.maxLineBytes());
    int count = 0;
    int nonJson = 0;
    try {
      while (true) {
        Optional<byte[]> line = lines.next();
        if (line.isEmpty()) {
          inbox.add(new Eof());
          return;
        }
        if (lines.totalBytes() > settings.maxTotalBytes()) {
          inbox.add(new Fatal("wrote more than " + settings.maxTotalBytes() + " bytes to stdout"));
          return;
        }
        byte[] bytes = line.get();
        if (isBlank(bytes)) {
          continue;
        }
        if (++count > settings.maxMessages()) {
          inbox.add(new Fatal("wrote more than " + settings.maxMessages() + " messages"));
          return;
        }
        Object parsed;
        try {
          parsed = mapper.readValue(bytes, Object.class);
        } catch (StreamConstraintsException e) {
          inbox.add(new Fatal("sent JSON beyond the bounds (nesting deeper than "
              + settings.maxDepth() + " or a value too long)"));
          return;
        } catch (JacksonException e) {
          parsed = null;
        }
        if (parsed instanceof Map<?, ?>) {
          @SuppressWarnings("unchecked")
          Map<String, Object> json = (Map<String, Object>) Json.freeze(parsed);
          inbox.add(new Message(json));
        } else if (++nonJson > settings.maxNonJsonLines()) {
          inbox.add(new Fatal("wrote more than " + settings.maxNonJsonLines() + " lines that are not JSON-RPC to stdout"));
          return;
        }
      }
    } catch (BoundedLineReader.LineTooLongException e) {
      inbox.add(new Fatal("wrote " + e.getMessage()));
    } catch (IOException | RuntimeException e) {
      inbox.add(new Eof());
    } catch (StackOverflowError e) {
      inbox.add(new Fatal("sent JSON too deeply nested to copy"));
    }
  }

  private static boolean isBlank(byte[] bytes) {
    for (byte b : bytes) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private void drainStderr() {
    byte[] buf = new byte[8192];
    try (InputStream err = process.getErrorStream()) {
      int n;
      while ((n = err.read(buf)) >= 0) {
        synchronized (stderrTail) {
          if (n >= STDERR_TAIL) {
            System.arraycopy(buf, n - STDERR_TAIL, stderrTail, 0, STDERR_TAIL);
            stderrTailLen = STDERR_TAIL;
          } else {
            int keep = Math.min(stderrTailLen, STDERR_TAIL - n);
            System.arraycopy(stderrTail, stderrTailLen - keep, stderrTail, 0, keep);
            System.arraycopy(buf, 0, stderrTail, keep, n);
            stderrTailLen = keep + n;
          }
        }
      }
    } catch (IOException e) {
      // The pipe closed with the process.
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
