package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.SessionException;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * The default pre-flight (DESIGN §5): spawns a stdio server twice, concurrently, as two different
 * callers, speaks raw newline-delimited JSON-RPC to each (so no capability key is hidden from
 * the comparison), and hands both answers to {@link HandshakeComparator}.
 *
 * <p>Both protocol eras are spoken: {@code initialize} + {@code notifications/initialized}
 * ({@value Mcp#LEGACY_VERSION} offered, anything the server negotiates accepted) and
 * {@code server/discover} with per-request {@code _meta} ({@value Mcp#MODERN_VERSION}); see
 * {@link HandshakeEra}. Every bound is a {@link PreflightSettings} field.
 *
 * <p>Never mutates the description. Any failure to measure resolves to
 * {@link PreflightResult#notRun} with a short reason; only {@link InterruptedException} escapes,
 * and even then every process this pre-flight started is torn down first. Thread-safe: the
 * process ceiling is shared by every concurrent call on one instance.
 */
public final class StdioPreflightTransport implements PreflightTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StdioPreflightTransport.class);
  /** How long past its deadline a conversation may block (in a write) before it is killed. */
  private static final long WATCHDOG_GRACE_MS = 500;

  private final PreflightSettings settings;
  private final Semaphore ceiling;
  private final ScheduledThreadPoolExecutor watchdog;
  private final JsonMapper mapper;

  /** A transport with the given bounds. */
  public StdioPreflightTransport(PreflightSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.ceiling = new Semaphore(settings.maxProcesses(), true);
    this.mapper = ServerProcess.mapper(settings);
    this.watchdog = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "cotenant-preflight-watchdog");
      t.setDaemon(true);
      return t;
    });
    watchdog.setKeepAliveTime(5, TimeUnit.SECONDS);
    watchdog.allowCoreThreadTimeOut(true);
    watchdog.setRemoveOnCancelPolicy(true);
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
    Map<String, Object> a = Objects.requireNonNull(first.snapshot);
    Map<String, Object> b = Objects.requireNonNull(second.snapshot);
    List<String> divergent = HandshakeComparator.compare(a, b);
    if (!divergent.isEmpty()) {
      LOG.debug("pre-flight of {}: divergent facets {}", LogSafe.escape(server.name()), divergent);
    }
    return PreflightResult.ran(divergent, facts(a));
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

  /** One caller's conversation on its own thread, under the process ceiling. */
  private final class CallerRun implements Runnable {
    final ServerDescription server;
    final Caller caller;
    final Thread thread;
    volatile CallerHandshake handshake;
    volatile boolean cancelled;
    volatile Map<String, Object> snapshot;
    volatile String failure;

    CallerRun(ServerDescription server, Caller caller) {
      this.server = server;
      this.caller = caller;
      this.thread = new Thread(this, "cotenant-preflight-" + caller.label());
      this.thread.setDaemon(true);
    }

    void cancel() {
      cancelled = true;
      thread.interrupt();
      CallerHandshake h = handshake;
      if (h != null) {
        h.abort("cancelled");
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
      try {
        CallerHandshake h = new CallerHandshake(server, caller, settings, mapper);
        handshake = h;
        if (cancelled) {
          failure = "cancelled";
          return;
        }
        long limit = settings.timeout().toMillis();
        dog = watchdog.schedule(
            () -> h.abort("timed out after " + limit + " ms"), limit + WATCHDOG_GRACE_MS, TimeUnit.MILLISECONDS);
        snapshot = h.run();
      } catch (SessionException f) {
        failure = f.getMessage();
      } catch (InterruptedException e) {
        failure = "cancelled";
      } catch (RuntimeException | StackOverflowError e) {
        failure = "unmeasurable: " + e.getClass().getSimpleName();
      } finally {
        if (dog != null) {
          dog.cancel(false);
        }
        ceiling.release();
      }
    }
  }
}
