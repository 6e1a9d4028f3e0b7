package dev.cotenant.providers.session;

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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * One spawned server and its three pipes: newline-delimited JSON-RPC on stdin/stdout, stderr
 * drained on its own thread (keeping only a short tail for failure messages). A reader thread
 * parses stdout under every bound and hands messages over: {@link #poll} (told of each by
 * {@link #onEvents}) or {@link #next}. Teardown: close stdin,
 * wait, SIGTERM the process, every descendant and every process carrying the spawn's
 * {@link SpawnCookie}, wait, SIGKILL, then scan for cookie carriers again until none is left or
 * {@link #MAX_SWEEPS} scans were made. Used only by {@link StdioSession}.
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
   * How the process ended, read once: {@code how} is {@code "exited N"} or {@code "closed stdout"},
   * {@code stderr} the last line it wrote there (possibly empty).
   */
  record Exit(String how, String stderr) {
    /**
     * The failure for a request or write that {@code when} names, e.g. {@code "before answering"}
     * or {@code "before answering tools/list"}: {@code "exited 1 before answering: <the last
     * stderr line, escaped and bounded>"}.
     */
    SessionException failure(String when) {
      StringBuilder sb = new StringBuilder(how).append(' ').append(when);
      if (!stderr.isEmpty()) {
        sb.append(": ").append(LogSafe.escape(stderr, STDERR_LINE));
      }
      return new SessionException(SessionException.Kind.EXITED, sb.toString());
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(ServerProcess.class);
  private static final int STDERR_TAIL = 2048;
  /** The most bytes written to stdin at once: what the JDK copies through a buffer on the stack (8 KiB). */
  static final int WRITE_PIECE = 8192;
  /** The most characters of the last stderr line a failure quotes, escaped. */
  private static final int STDERR_LINE = 160;
  /** How long a failure waits for the exit status, and then for the rest of stderr. */
  private static final long EXIT_WAIT_MS = 500;
  /**
   * How many times teardown scans for cookie carriers after its SIGKILL. Each scan SIGKILLs what
   * it finds; a process that keeps forking replacements could otherwise hold teardown forever.
   */
  static final int MAX_SWEEPS = 8;

  private final Process process;
  /** The process's handle (pid and start time), taken at once. */
  private final ProcessHandle handle;
  private final SpawnCookie cookie;
  private final SessionSettings settings;
  private final OutputStream stdin;
  private final BlockingQueue<Event> inbox = new LinkedBlockingQueue<>();
  private volatile Runnable onEvents = () -> {};
  private final JsonMapper mapper;
  private final byte[] stderrTail = new byte[STDERR_TAIL];
  private int stderrTailLen;
  private final Set<ProcessHandle> known = new LinkedHashSet<>();
  private final AtomicBoolean tornDown = new AtomicBoolean();
  private final Thread reader;
  private final Thread drainer;

  private ServerProcess(Process process, SpawnCookie cookie, SessionSettings settings, JsonMapper mapper, String label) {
    this.process = process;
    this.handle = process.toHandle();
    this.cookie = cookie;
    this.settings = settings;
    this.stdin = process.getOutputStream();
    this.mapper = mapper;
    this.reader = daemon(this::readStdout, "cotenant-session-stdout-" + label);
    this.drainer = daemon(this::drainStderr, "cotenant-session-stderr-" + label);
    reader.start();
    drainer.start();
  }

  /** The mapper that enforces the settings' nesting and size bounds; thread-safe, made once per session transport. */
  static JsonMapper mapper(SessionSettings settings) {
    StreamReadConstraints constraints = StreamReadConstraints.builder()
        .maxNestingDepth(settings.maxDepth())
        .maxDocumentLength(settings.maxMessageBytes())
        .maxStringLength(settings.maxMessageBytes())
        .maxNameLength(64 * 1024)
        .maxNumberLength(1000)
        .build();
    JsonFactory factory = JsonFactory.builder().streamReadConstraints(constraints).build();
    return JsonMapper.builder(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  }

  /**
   * Starts the server the description names, with its env on top of this process's env and a
   * fresh {@link SpawnCookie}, in its working directory. Never mutates the description.
   *
   * @throws SessionException of kind {@code START}, with a reason naming the command or directory
   */
  static ServerProcess start(ServerDescription server, SessionSettings settings, JsonMapper mapper, String label)
      throws SessionException {
    List<String> command = new ArrayList<>();
    command.add(server.command());
    command.addAll(server.args());
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(server.env());
    SpawnCookie cookie = SpawnCookie.create();
    cookie.addTo(pb.environment());
    if (server.cwd().isPresent()) {
      File dir = new File(server.cwd().get());
      if (!dir.isDirectory()) {
        throw new SessionException(SessionException.Kind.START,
            "working directory not found: " + LogSafe.escape(server.cwd().get(), 120));
      }
      pb.directory(dir);
    }
    Process process;
    try {
      process = pb.start();
    } catch (IOException | RuntimeException e) {
      throw new SessionException(SessionException.Kind.START, StartFailure.reason(server, e));
    }
    cookie.spawned(process.pid());
    try {
      return new ServerProcess(process, cookie, settings, mapper, label);
    } catch (RuntimeException | Error e) {
      // The reader threads could not be started: the process must not outlive this.
      process.destroyForcibly();
      throw e;
    }
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
    byte[] bytes = mapper.writeValueAsBytes(Json.thaw(message));
    try {
      synchronized (stdin) {
        // In pieces of at most WRITE_PIECE bytes, which the JDK writes from a buffer on the
        // stack: a larger write first copies the whole message into native memory of its own,
        // which the C library keeps once freed (a few large messages left a daemon holding
        // tens of MiB).
        for (int off = 0; off < bytes.length; off += WRITE_PIECE) {
          stdin.write(bytes, off, Math.min(WRITE_PIECE, bytes.length - off));
        }
        stdin.write('\n');
        stdin.flush();
      }
    } catch (IOException e) {
      throw exited(when);
    }
  }

  /**
   * Runs {@code listener} each time the reader hands over an event, on the reader's thread (it
   * must not block), and once now when events wait already. Set once, before the events matter.
   */
  void onEvents(Runnable listener) {
    onEvents = listener;
    if (!inbox.isEmpty()) {
      listener.run();
    }
  }

  /** The next event if one waits; never blocks. */
  Optional<Event> poll() {
    return Optional.ofNullable(inbox.poll());
  }

  /** True when an event waits. */
  boolean hasEvents() {
    return !inbox.isEmpty();
  }

  private void emit(Event e) {
    inbox.add(e);
    onEvents.run();
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
      how = process.waitFor(EXIT_WAIT_MS, TimeUnit.MILLISECONDS) ? "exited " + process.exitValue() : "closed stdout";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      how = "closed stdout";
    }
    // What it wrote to stderr just before exiting may still be in the pipe: let the drainer finish.
    try {
      drainer.join(EXIT_WAIT_MS);
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

  /**
   * The process, every descendant seen so far and every cookie carrier found so far that is still
   * alive (no process-table scan). The process itself is alive until this JVM has reaped it; any
   * other zombie counts as gone: it runs nothing, and it is reaped by someone else, possibly late.
   */
  List<ProcessHandle> liveProcesses() {
    List<ProcessHandle> out = new ArrayList<>();
    synchronized (known) {
      known.add(handle);
      for (ProcessHandle h : known) {
        if (alive(h)) {
          out.add(h);
        }
      }
    }
    return out;
  }

  private boolean alive(ProcessHandle h) {
    if (h.equals(handle)) {
      return process.isAlive();
    }
    if (!h.isAlive()) {
      return false;
    }
    return ProcTable.stat(h.pid()).map(s -> !s.gone()).orElse(!ProcTable.SUPPORTED);
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
      known.add(handle);
      try {
        process.descendants().forEach(known::add);
      } catch (RuntimeException e) {
        // The process table could not be read; the handles already known still get signalled.
      }
    }
  }

  /**
   * One scan of the process table for processes carrying the spawn's cookie, and their
   * descendants ({@link SpawnCookie#sweep}): each is signalled as the scan recognises it (SIGKILL
   * when {@code force}, else SIGTERM), added to the known set, and returned.
   */
  private List<ProcessHandle> signalCarriers(boolean force) {
    List<ProcessHandle> found = new ArrayList<>();
    Consumer<ProcessHandle> signal = h -> {
      if (force) {
        h.destroyForcibly();
      } else {
        h.destroy();
      }
      found.add(h);
    };
    try {
      cookie.sweep(signal);
    } catch (RuntimeException e) {
      // The process table could not be read; the handles already known still get signalled.
    }
    synchronized (known) {
      known.addAll(found);
    }
    return found;
  }

  /**
   * Ends the process and everything it started: close stdin, wait; SIGTERM the process, every
   * descendant and every cookie carrier, wait; SIGKILL whatever is left and sweep for carriers
   * ({@link #kill}). Descendants seen before stdin closed are signalled even when the process
   * itself has exited and left them behind; a process started after that (say, by a server that
   * forks when its stdin closes) or one that left the tree is found by its cookie. Idempotent.
   * When the calling thread is interrupted the waits are skipped (straight to SIGKILL) and the
   * interrupt is restored.
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
      remember();
      signalCarriers(false);
      List<ProcessHandle> alive = liveProcesses();
      if (!alive.isEmpty()) {
        for (ProcessHandle h : alive) {
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

  /**
   * SIGKILL everything still alive and wait (uninterruptibly, bounded by the kill wait) for it to
   * vanish; then scan for processes carrying the cookie, SIGKILLing each and its descendants as it
   * is found, wait for them, and scan again, until two scans in a row find none (a process that
   * replaced itself while one scan read the table is caught by the next) or {@link #MAX_SWEEPS}
   * scans were made. The scans share the kill wait: past it they no longer wait between scans.
   */
  void kill() {
    remember();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(settings.killWait().toMillis(), 100));
    boolean interrupted = false;
    List<ProcessHandle> alive = liveProcesses();
    for (ProcessHandle h : alive) {
      h.destroyForcibly();
    }
    int emptyScans = 0;
    for (int sweep = 0; ; sweep++) {
      interrupted |= !awaitGone(alive, deadline);
      if (sweep == MAX_SWEEPS) {
        break;
      }
      alive = signalCarriers(true);
      emptyScans = alive.isEmpty() ? emptyScans + 1 : 0;
      if (emptyScans == 2) {
        break;
      }
    }
    if (!alive.isEmpty()) {
      LOG.warn("processes carrying {} were still being started after {} scans; some may have been left running",
          cookie, MAX_SWEEPS);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until every known process is gone; false when interrupted. */
  private boolean waitGone(long millis) {
    return pollGone(liveProcesses(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), true);
  }

  /** Waits, uninterruptibly, until {@code handles} are gone or {@code deadline} passed; false when interrupted meanwhile. */
  private boolean awaitGone(List<ProcessHandle> handles, long deadline) {
    return pollGone(handles, deadline, false);
  }

  /**
   * Polls until every handle is gone (exited, or a zombie) or {@code deadline} passed, sleeping
   * from 1 ms up to 20 ms between looks. False when interrupted: at once when
   * {@code interruptible}, otherwise once the wait is over.
   */
  private boolean pollGone(List<ProcessHandle> handles, long deadline, boolean interruptible) {
    List<ProcessHandle> left = new ArrayList<>(handles);
    boolean interrupted = false;
    long pause = 1;
    while (true) {
      left.removeIf(h -> !alive(h));
      long wait = deadline - System.nanoTime();
      if (left.isEmpty() || wait <= 0) {
        return !interrupted;
      }
      try {
        Thread.sleep(Math.min(pause, Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait))));
      } catch (InterruptedException e) {
        if (interruptible) {
          return false;
        }
        interrupted = true;
      }
      pause = Math.min(pause * 2, 20);
    }
  }

  private void readStdout() {
    BoundedLineReader lines = new BoundedLineReader(process.getInputStream(), settings.maxMessageBytes());
    long count = 0;
    int nonJson = 0;
    try {
      while (true) {
        Optional<byte[]> line = lines.next();
        if (line.isEmpty()) {
          emit(new Eof());
          return;
        }
        if (lines.totalBytes() > settings.maxTotalBytes()) {
          emit(new Fatal("wrote more than " + settings.maxTotalBytes() + " bytes to stdout"));
          return;
        }
        byte[] bytes = line.get();
        if (isBlank(bytes)) {
          continue;
        }
        if (++count > settings.maxMessages()) {
          emit(new Fatal("wrote more than " + settings.maxMessages() + " messages"));
          return;
        }
        Object parsed;
        try {
          parsed = mapper.readValue(bytes, Object.class);
        } catch (StreamConstraintsException e) {
          emit(new Fatal("sent JSON beyond the bounds (nesting deeper than "
              + settings.maxDepth() + " or a value too long)"));
          return;
        } catch (JacksonException e) {
          parsed = null;
        }
        if (parsed instanceof Map<?, ?>) {
          @SuppressWarnings("unchecked")
          Map<String, Object> json = (Map<String, Object>) Json.freeze(parsed);
          emit(new Message(json));
        } else if (++nonJson > settings.maxNonJsonLines()) {
          emit(new Fatal("wrote more than " + settings.maxNonJsonLines() + " lines that are not JSON-RPC to stdout"));
          return;
        }
      }
    } catch (BoundedLineReader.LineTooLongException e) {
      emit(new Fatal("wrote " + e.getMessage()));
    } catch (IOException | RuntimeException e) {
      emit(new Eof());
    } catch (StackOverflowError e) {
      emit(new Fatal("sent JSON too deeply nested to copy"));
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
