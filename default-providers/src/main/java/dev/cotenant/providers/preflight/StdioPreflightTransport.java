package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Transport;
import dev.cotenant.providers.session.JsonRpc;
import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default pre-flight (docs/preflight.md): starts a server twice, concurrently, as two different
 * callers, through a {@link SessionTransport} (the one the runtime selected, {@code stdio} by
 * default), and hands both answers to {@link HandshakeComparator}. Every session keeps every key
 * the server sends, so no capability is hidden from the comparison.
 *
 * <p>Each caller's conversation: open a {@link ServerSession}, handshake in the configured
 * {@link HandshakeEra} ({@code initialize} + {@code notifications/initialized} offering
 * {@value Mcp#LEGACY_VERSION}, or {@code server/discover} with per-request {@code _meta} for
 * {@value Mcp#MODERN_VERSION}), {@code tools/list} following {@code nextCursor}, the advertised
 * {@code prompts/list} and {@code resources/list}, close the session. The server's own requests
 * are answered as a client with no user would ({@link ServerMessageHandler#noUser}). Bounds:
 * {@link PreflightSettings#maxProcesses()} servers at once per instance;
 * {@link PreflightSettings#timeout()} for starting the server and again for the conversation once
 * it is started (a watchdog interrupts an {@code open} or aborts a session still blocked 500 ms
 * past it); {@link PreflightSettings#maxListPages()} and {@link PreflightSettings#maxListItems()}
 * per listing. The session transport bounds what it reads and how it tears down; the {@code stdio}
 * one, even behind a wrapper that opens on the caller's thread (a sandbox), does so within
 * {@link PreflightSettings#sessionSettings()} for the pre-flight's sessions
 * ({@link StdioSessionTransport#openWithin}), not with the bounds of a long-lived session.
 *
 * <p>Never mutates the description. Any failure to measure resolves to
 * {@link PreflightResult#notRun} with a short reason; only {@link InterruptedException} escapes,
 * and even then every session this pre-flight opened is aborted and closed first. Thread-safe:
 * the process ceiling is shared by every concurrent call on one instance.
 */
public final class StdioPreflightTransport implements PreflightTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StdioPreflightTransport.class);
  /** How long past its deadline a conversation may block (in a write) before it is aborted. */
  private static final long WATCHDOG_GRACE_MS = 500;
  /** What a server's {@code sampling/createMessage} or {@code elicitation/create} is declined with. */
  private static final ServerMessageHandler NO_USER =
      ServerMessageHandler.noUser("declined: a pre-flight has no user to ask");

  private final SessionTransport sessions;
  private final PreflightSettings settings;
  private final Semaphore ceiling;
  private final ScheduledThreadPoolExecutor watchdog;

  /**
   * A pre-flight that opens its sessions through {@code sessions}, with the given conversation
   * bounds.
   */
  public StdioPreflightTransport(SessionTransport sessions, PreflightSettings settings) {
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.ceiling = new Semaphore(settings.maxProcesses(), true);
    this.watchdog = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "cotenant-preflight-watchdog");
      t.setDaemon(true);
      return t;
    });
    watchdog.setKeepAliveTime(5, TimeUnit.SECONDS);
    watchdog.allowCoreThreadTimeOut(true);
    watchdog.setRemoveOnCancelPolicy(true);
  }

  /** A pre-flight over its own {@link StdioSessionTransport}, both bounded by {@code settings}. */
  public static StdioPreflightTransport stdio(PreflightSettings settings) {
    return new StdioPreflightTransport(new StdioSessionTransport(settings.sessionSettings()), settings);
  }

  /** The bounds in force. */
  public PreflightSettings settings() {
    return settings;
  }

  @Override
  public PreflightResult preflight(ServerDescription server) throws InterruptedException {
    Objects.requireNonNull(server, "server");
    if (server.transport() != Transport.STDIO) {
      return notRun(server, "not a stdio server");
    }
    if (!server.enabled()) {
      return notRun(server, "disabled");
    }
    if (server.command().isBlank()) {
      return notRun(server, "no command configured");
    }
    CallerRun first = new CallerRun(server, Caller.FIRST);
    CallerRun second = new CallerRun(server, Caller.SECOND);
    first.thread.start();
    second.thread.start();
    try {
      first.thread.join();
      second.thread.join();
    } catch (InterruptedException e) {
      first.cancel();
      second.cancel();
      long bound = settings.killWait().toMillis() + 5_000;
      joinUninterruptibly(first.thread, bound);
      joinUninterruptibly(second.thread, bound);
      throw e;
    }
    try {
      return result(server, first, second);
    } catch (RuntimeException | StackOverflowError e) {
      return notRun(server, "unmeasurable: " + e.getClass().getSimpleName());
    }
  }

  private PreflightResult result(ServerDescription server, CallerRun first, CallerRun second) {
    if (first.failure != null) {
      return notRun(server, first.failure);
    }
    if (second.failure != null) {
      return notRun(server, second.failure);
    }
    CallerSnapshot.Answers x = Objects.requireNonNull(first.answers);
    CallerSnapshot.Answers y = Objects.requireNonNull(second.answers);
    Map<String, Object> a = x.snapshot();
    Map<String, Object> b = y.snapshot();
    Object va = a.get(HandshakeComparator.PROTOCOL_VERSION);
    Object vb = b.get(HandshakeComparator.PROTOCOL_VERSION);
    if (StartRecorder.versionsAgree(first.caller.protocolVersion(), va, second.caller.protocolVersion(), vb)) {
      // The callers asked for different versions: a server answering each the version it asked
      // for is as reproducible as one answering both the same.
      b = new java.util.LinkedHashMap<>(b);
      if (va == null) {
        b.remove(HandshakeComparator.PROTOCOL_VERSION);
      } else {
        b.put(HandshakeComparator.PROTOCOL_VERSION, va);
      }
    }
    List<String> divergent = HandshakeComparator.compare(a, b);
    if (!divergent.isEmpty()) {
      LOG.debug("pre-flight of {}: divergent facets {}", LogSafe.escape(server.name()), divergent);
    }
    StartRecorder.Outcome start = StartRecorder.record(
        new StartRecorder.Side(first.caller, x, first.watch.unsolicited()),
        new StartRecorder.Side(second.caller, y, second.watch.unsolicited()));
    return PreflightResult.ran(divergent, facts(a), start.start(), start.notRecorded());
  }

  /** The handshake facts evidence sources read, from the first caller's snapshot. */
  static HandshakeFacts facts(Map<String, Object> snapshot) {
    Object version = snapshot.get(HandshakeComparator.PROTOCOL_VERSION);
    List<ToolFacts> tools = new ArrayList<>();
    Object listed = snapshot.get(HandshakeComparator.TOOLS);
    if (listed instanceof List<?>) {
      for (Object item : (List<?>) listed) {
        if (item instanceof Map<?, ?>) {
          Map<?, ?> tool = (Map<?, ?>) item;
          Object name = tool.get("name");
          Object annotations = tool.get("annotations");
          @SuppressWarnings("unchecked")
          Optional<Map<String, Object>> ann = annotations instanceof Map<?, ?>
              ? Optional.of((Map<String, Object>) annotations) : Optional.empty();
          tools.add(new ToolFacts(name instanceof String ? (String) name : "", ann));
        }
      }
    }
    return HandshakeFacts.fromJson(
        version instanceof String ? (String) version : "",
        objectOrEmpty(snapshot.get(HandshakeComparator.CAPABILITIES)),
        objectOrEmpty(snapshot.get(HandshakeComparator.SERVER_INFO)),
        tools);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> objectOrEmpty(Object value) {
    return value instanceof Map<?, ?> ? (Map<String, ?>) value : Map.of();
  }

  private static PreflightResult notRun(ServerDescription server, String reason) {
    LOG.debug("pre-flight of {} did not run: {}", LogSafe.escape(server.name()), reason);
    return PreflightResult.notRun(reason);
  }

  private static void joinUninterruptibly(Thread t, long millis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    boolean interrupted = false;
    while (t.isAlive()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The handler of one caller's session: answers as {@link ServerMessageHandler#noUser} does, and
   * keeps the first request (but {@code ping}) or notification the server sends of its own before
   * {@link #stop}: a server that talks before its first call cannot have its start answered from
   * the records.
   */
  private static final class Watch implements ServerMessageHandler {
    private volatile boolean watching = true;
    private volatile String first;

    @Override
    public Reply onRequest(String method, Map<String, Object> params) {
      if (!"ping".equals(method)) {
        saw("a request " + method);
      }
      return NO_USER.onRequest(method, params);
    }

    @Override
    public void onNotification(String method, Map<String, Object> params) {
      saw("a notification " + method);
    }

    private synchronized void saw(String what) {
      if (watching && first == null) {
        first = what;
      }
    }

    synchronized void stop() {
      watching = false;
    }

    /** The first message seen while watching, in words; null when none. */
    String unsolicited() {
      return first;
    }
  }

  /**
   * One caller's conversation on its own thread, under the process ceiling. It may be stopped
   * from another thread (the watchdog, or cancellation): an open session is aborted, and an
   * {@code open} still in progress is interrupted.
   */
  private final class CallerRun implements Runnable {
    final ServerDescription server;
    final Caller caller;
    final Thread thread;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the open session, once {@code open} returned. */
    private ServerSession session;
    /** Guarded by {@link #lock}: true while {@code open} runs. */
    private boolean opening;
    /** Guarded by {@link #lock}: why the conversation was stopped from outside, first reason kept. */
    private String stopped;
    /** What the server sends this caller of its own, watched until the listings end. */
    final Watch watch = new Watch();
    volatile CallerSnapshot.Answers answers;
    volatile String failure;

    CallerRun(ServerDescription server, Caller caller) {
      this.server = server;
      this.caller = caller;
      this.thread = new Thread(this, "cotenant-preflight-" + caller.label());
      this.thread.setDaemon(true);
    }

    void cancel() {
      stop("cancelled", true);
    }

    private void stop(String reason, boolean interrupt) {
      ServerSession s;
      synchronized (lock) {
        if (stopped == null) {
          stopped = reason;
        }
        s = session;
        if (interrupt || opening) {
          thread.interrupt();
        }
      }
      if (s != null) {
        s.abort(reason);
      }
    }

    private String stoppedOr(String reason) {
      synchronized (lock) {
        return stopped != null ? stopped : reason;
      }
    }

    @Override
    public void run() {
      try {
        ceiling.acquire();
      } catch (InterruptedException e) {
        failure = "cancelled";
        return;
      }
      ScheduledFuture<?> dog = null;
      ServerSession opened = null;
      try {
        long limit = settings.timeout().toMillis();
        synchronized (lock) {
          if (stopped != null) {
            failure = stopped;
            return;
          }
          opening = true;
        }
        dog = watchdog.schedule(() -> stop("not started in " + JsonRpc.duration(limit), false),
            limit + WATCHDOG_GRACE_MS, TimeUnit.MILLISECONDS);
        String stoppedWhileOpening;
        try {
          opened = StdioSessionTransport.openWithin(settings.sessionSettings(),
              () -> sessions.open(server, "preflight-" + caller.label(), watch));
        } finally {
          synchronized (lock) {
            opening = false;
            session = opened;
            stoppedWhileOpening = stopped;
          }
        }
        if (stoppedWhileOpening != null) {
          opened.abort(stoppedWhileOpening);
          failure = stoppedWhileOpening;
          return;
        }
        dog.cancel(false);
        dog = watchdog.schedule(() -> stop("no answer in " + JsonRpc.duration(limit), false),
            limit + WATCHDOG_GRACE_MS, TimeUnit.MILLISECONDS);
        answers = CallerSnapshot.take(opened, caller, settings);
        watch.stop();
      } catch (SessionException e) {
        failure = stoppedOr(e.getMessage());
      } catch (InterruptedException e) {
        failure = stoppedOr("cancelled");
      } catch (RuntimeException | StackOverflowError e) {
        failure = "unmeasurable: " + e.getClass().getSimpleName();
      } finally {
        if (dog != null) {
          dog.cancel(false);
        }
        try {
          if (opened != null) {
            opened.close();
          }
        } catch (RuntimeException e) {
          LOG.debug("closing the pre-flight session of {} failed: {}", LogSafe.escape(server.name()), e.toString());
        } finally {
          ceiling.release();
        }
      }
    }
  }
}
