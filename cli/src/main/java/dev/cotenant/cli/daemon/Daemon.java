package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.api.ApiHandler;
import dev.cotenant.cli.daemon.api.DaemonProcesses;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import dev.cotenant.gateway.pool.EntrySnapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running daemon: holds the home's {@link DaemonLock}, owns one {@link Sharing} (the pool of
 * every backend), serves shims on the Unix socket, MCP clients over Streamable HTTP on loopback
 * and the JSON API ({@link ApiHandler}) at {@code /api} there and on {@code api.sock}, re-reads
 * the records when they change, and on {@link #stop()} ends every session, drains every backend,
 * removes the sockets and its state file and releases the lock. A
 * {@link Watchdog} kills the backends if the daemon dies without stopping.
 */
public final class Daemon implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

  /** The default HTTP port on 127.0.0.1. */
  public static final int DEFAULT_PORT = 7587;

  private static final String LOOPBACK = "127.0.0.1";
  /** The name of the {@code api.sock} listener in {@link HttpListeners}. */
  static final String API_LISTENER = "the API on api.sock";
  /** The name of the loopback port's listener in {@link HttpListeners}. */
  static final String HTTP_LISTENER = "HTTP on 127.0.0.1";

  private final CotenantHome home;
  private final Cotenant cotenant;
  private final ServerDirectory directory;
  private final int port;
  private final String id;
  private final boolean portChosen;
  private final Set<SocketSession> sessions = ConcurrentHashMap.newKeySet();
  private final AtomicLong sessionNumbers = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Object lifecycle = new Object();
  private @Nullable DaemonLock lock;
  private @Nullable Watchdog watchdog;
  private @Nullable Sharing sharing;
  private @Nullable UnixSocketListener listener;
  private @Nullable HttpListeners httpListeners;
  /** The HTTP port bound; -1 when none is. */
  private volatile int httpPort = -1;
  /** Made at the first HTTP connection (on {@code api.sock} or the port): Jetty is loaded then. */
  private volatile @Nullable HttpStart httpStart;
  private @Nullable RecordsWatcher watcher;
  /** The daemon's one timer thread: the records watch, the heap trim. */
  private @Nullable ScheduledExecutorService timer;
  private boolean stopping;

  /**
   * @param home where the socket, lock and state live
   * @param cotenant the runtime (sharing enabled by the caller unless the operator said otherwise)
   * @param directory where servers are looked up
   * @param port the HTTP port on 127.0.0.1 (0: any free one; negative: no HTTP)
   * @param id the daemon's id, which every process it spawns inherits ({@value Watchdog#ENV});
   *     empty: no watchdog
   */
  public Daemon(CotenantHome home, Cotenant cotenant, ServerDirectory directory, int port, String id) {
    this(home, cotenant, directory, port, id, true);
  }

  /**
   * As {@link #Daemon(CotenantHome, Cotenant, ServerDirectory, int, String)}; when
   * {@code portChosen} is false (the default port, not one the operator named) and the port is
   * in use, HTTP is served on a free port instead, named in {@code daemon.json}.
   */
  public Daemon(CotenantHome home, Cotenant cotenant, ServerDirectory directory, int port, String id, boolean portChosen) {
    this.portChosen = portChosen;
    this.id = id;
    this.home = home;
    this.cotenant = cotenant;
    this.directory = directory;
    this.port = port;
  }

  /**
   * Starts everything; on failure, undoes what was started.
   *
   * @throws DaemonLock.HeldException when another daemon runs for this home
   * @throws IOException when the socket, the HTTP port or the state file cannot be had
   */
  public void start() throws IOException {
    synchronized (lifecycle) {
      try {
        home.ensure();
        home.checkOwnership(cotenant.recordsDirectory());
        home.checkSocketPathLength();
        lock = DaemonLock.acquire(home.lock());
        if (!id.isBlank()) {
          watchdog = Watchdog.start(id).orElse(null);
        } else {
          LOG.warn("{} is not set: backends of this daemon are not killed if it dies without stopping", Watchdog.ENV);
        }
        sharing = cotenant.sharing();
        LOG.info("backends start {}", cotenant.backendNamespace().mode().describe());
        String token = ApiToken.readOrCreate(home.token());
        // Both HTTP listeners are bound now; Jetty starts on each at its first connection.
        HttpListeners l = new HttpListeners();
        httpListeners = l;
        Path apiPath = home.apiSocket();
        l.watch(API_LISTENER, HttpListeners.bindUnix(apiPath), apiPath, ch -> httpStart(token).apiSocket(apiPath, ch));
        LOG.info("API listening on {}", apiPath);
        if (port >= 0) {
          ServerSocketChannel tcp = bindHttp();
          httpPort = ((InetSocketAddress) tcp.getLocalAddress()).getPort();
          l.watch(HTTP_LISTENER, tcp, null, ch -> httpStart(token).http(ch));
          LOG.info("HTTP listening on 127.0.0.1:{} (MCP at /mcp/<server>)", httpPort);
        }
        l.start();
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread th = new Thread(r, "cotenant-daemon-timer");
          th.setDaemon(true);
          return th;
        });
        timer = t;
        watcher = new RecordsWatcher(cotenant.recordsDirectory(), cotenant.recordStores(),
            !cotenant.config().get(dev.cotenant.gateway.providers.Spi.RECORDS_KEY, "file").equals("file"),
            sharing::recordsChanged, t);
        t.scheduleWithFixedDelay(HeapTrim.ofThisJvm(), HeapTrim.PERIOD_SECONDS, HeapTrim.PERIOD_SECONDS, TimeUnit.SECONDS);
        writeState();
        // The socket opens last: a client it answers (a shim, `serve --detach`) finds the daemon
        // ready, daemon.json written and HTTP listening.
        listener = UnixSocketListener.open(home.socket(), this::accept);
        LOG.info("daemon {} ready: socket {}{}", ProcessHandle.current().pid(), home.socket(),
            httpPort < 0 ? "" : ", http://127.0.0.1:" + httpPort + "/mcp/{server}");
      } catch (IOException | RuntimeException e) {
        stop();
        throw e;
      }
    }
  }

  /**
   * The TCP socket of HTTP on 127.0.0.1: on {@link #port}, or on a free one when that is the
   * default port and in use.
   */
  private ServerSocketChannel bindHttp() throws IOException {
    try {
      return HttpListeners.bindTcp(LOOPBACK, port);
    } catch (IOException e) {
      boolean inUse = e instanceof java.net.BindException || e.getCause() instanceof java.net.BindException;
      if (!inUse || portChosen || port == 0) {
        throw new IOException("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
      }
      LOG.warn("port {} on 127.0.0.1 is in use; serving HTTP on a free port instead (see {})", port, home.state());
      return HttpListeners.bindTcp(LOOPBACK, 0);
    }
  }

  /** What starts Jetty on the HTTP listeners, made at the first connection to either. */
  private synchronized HttpStart httpStart(String token) {
    HttpStart h = httpStart;
    if (h == null) {
      h = new HttpStart(cotenant, sharing(), directory, token, processes());
      httpStart = h;
    }
    return h;
  }

  /** A new connection's session; on the socket's thread, so nothing here blocks. */
  private SocketConnection.Handler accept(SocketConnection connection) {
    SocketSession s = new SocketSession(connection, sharing(), directory,
        "sock-" + sessionNumbers.incrementAndGet(), sessions::remove, new SocketSession.Control() {
          @Override
          public Map<String, Object> status() {
            return Daemon.this.status();
          }

          @Override
          public void stopSoon() {
            Thread t = new Thread(Daemon.this::stop, "cotenant-daemon-stop");
            t.setDaemon(true);
            t.start();
          }
        });
    sessions.add(s);
    synchronized (lifecycle) {
      if (stopping) {
        s.end();
      }
    }
    return s;
  }

  private Sharing sharing() {
    Sharing s = sharing;
    if (s == null) {
      throw new IllegalStateException("not started");
    }
    return s;
  }

  /** The sharing runtime (for accounting). */
  public Sharing sharingRuntime() {
    return sharing();
  }

  /** The HTTP port, when HTTP is served. */
  public Optional<Integer> httpPort() {
    int p = httpPort;
    return p < 0 ? Optional.empty() : Optional.of(p);
  }

  /**
   * What the API counts in what sharing costs besides the pool: this JVM, its watchdog, the
   * {@code cotenant serve} process waiting on it (when one started it as a child); every client
   * session over the socket whose hello was accepted, attached to a backend or not yet, with its
   * shim's pid (counted only while that is a live process of this user); and whether backends
   * start wrapped in a pid namespace.
   */
  DaemonProcesses processes() {
    return new DaemonProcesses() {
      @Override
      public List<Long> daemon() {
        List<Long> pids = new ArrayList<>();
        pids.add(ProcessHandle.current().pid());
        Watchdog w = watchdog;
        if (w != null) {
          pids.add(w.pid());
        }
        ProcessHandle.current().parent().filter(Daemon::isWaitingServe).ifPresent(p -> pids.add(p.pid()));
        return pids;
      }

      @Override
      public List<Client> clients() {
        List<Client> out = new ArrayList<>();
        java.util.Set<dev.cotenant.gateway.sharing.ClientSession> overSocket = new java.util.HashSet<>();
        for (SocketSession s : sessions) {
          s.connection().ifPresent(overSocket::add);
          s.acceptedServer().ifPresent(server -> {
            OptionalLong pid = s.shimPid();
            out.add(new Client(server, s.isAttached(), true,
                pid.isPresent() && ownLiveProcess(pid.getAsLong()) ? pid : OptionalLong.empty()));
          });
        }
        // A session over HTTP waiting on a deferred backend: no shim, and no backend counts it.
        Sharing sh = sharing;
        for (dev.cotenant.gateway.sharing.ClientSession c : sh == null ? List.<dev.cotenant.gateway.sharing.ClientSession>of()
            : sh.sessions()) {
          if (!overSocket.contains(c) && c.deferred()) {
            out.add(new Client(c.serverName(), false, false, OptionalLong.empty()));
          }
        }
        return out;
      }

      @Override
      public int backendWrappers() {
        // bubblewrap's pair: the process the pool started and its child, pid 1 of the namespace.
        return cotenant.backendNamespace().mode().contained() ? 2 : 0;
      }
    };
  }

  /** Whether {@code p} is a {@code cotenant serve} JVM of this user (one that started this daemon as its child and waits). */
  private static boolean isWaitingServe(ProcessHandle p) {
    ProcessHandle.Info info = p.info();
    return info.user().map(u -> u.equals(System.getProperty("user.name"))).orElse(false)
        && info.command().map(c -> Path.of(c).getFileName().toString().startsWith("java")).orElse(false)
        && info.arguments().map(a -> List.of(a).contains("serve")).orElse(false);
  }

  /** Whether {@code pid} is a live process of the user running the daemon. */
  private static boolean ownLiveProcess(long pid) {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
        .flatMap(h -> h.info().user()).map(u -> u.equals(System.getProperty("user.name"))).orElse(false);
  }

  /** Sessions connected over the socket now. */
  public int socketSessions() {
    return (int) sessions.stream().filter(SocketSession::isClientSession).count();
  }

  /**
   * The daemon's state and the pool's accounting as JSON values: pid, socket, HTTP port, records,
   * sessions over the socket and over HTTP, and one entry per backend (server, placement,
   * whether forced, state, pid, generation, sessions, calls, hazards, why it was placed so).
   */
  public Map<String, Object> status() {
    Map<String, Object> s = basics();
    HttpStart h = httpStart;
    s.put("socket_sessions", socketSessions());
    s.put("http_sessions", h == null ? 0 : h.httpSessions());
    List<Map<String, Object>> backends = new ArrayList<>();
    Sharing sh = sharing;
    for (EntrySnapshot e : sh == null ? List.<EntrySnapshot>of() : sh.accounting()) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("server", e.serverName());
      b.put("placement", e.placement().name().toLowerCase(Locale.ROOT));
      b.put("forced", e.forced());
      b.put("state", e.state().name().toLowerCase(Locale.ROOT));
      b.put("pid", e.pid().isPresent() ? (Object) e.pid().getAsLong() : dev.cotenant.api.Json.NULL);
      b.put("generation", e.generation());
      b.put("sessions", e.sessions());
      b.put("calls", e.calls());
      b.put("hazards", e.hazards());
      b.put("reason", e.reason());
      backends.add(b);
    }
    s.put("backends", backends);
    s.put("servers", dev.cotenant.cli.views.SessionsView.servers(sh == null ? List.of() : sh.sessions(),
        sh == null ? List.of() : sh.accounting()));
    return s;
  }


  /** What {@code daemon.json} and {@code status} both say: pid, socket, HTTP port, records, how backends start. */
  private Map<String, Object> basics() {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("pid", ProcessHandle.current().pid());
    s.put("socket", home.socket().toString());
    int p = httpPort;
    if (p >= 0) {
      s.put("port", p);
      s.put("mcp", "http://127.0.0.1:" + p + "/mcp/{server}");
    }
    s.put("records", cotenant.recordsDirectory().toString());
    s.put("backends_start", cotenant.backendNamespace().mode().describe());
    return s;
  }

  private void writeState() throws IOException {
    Map<String, Object> s = basics();
    s.put("configs", directory.files().stream().map(Path::toString).toList());
    s.put("started", Instant.now().toString());
    Watchdog w = watchdog;
    if (w != null) {
      s.put("watchdog_pid", w.pid());
    }
    AtomicFiles.replace(home.state(), Wire.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(s), null);
  }

  /** Blocks until the daemon has stopped. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops: no new session is accepted, both sockets and HTTP close, a measure job of the API is
   * cancelled, every session ends (its shim sees the socket close), every backend drains, the socket and {@code daemon.json} are removed, the watchdog sweeps, the lock
   * is released. Idempotent.
   */
  public void stop() {
    synchronized (lifecycle) {
      if (stopping) {
        return;
      }
      stopping = true;
    }
    long t0 = System.nanoTime();
    closeQuietly(listener);
    closeQuietly(httpListeners);
    closeQuietly(watcher);
    ScheduledExecutorService t = timer;
    if (t != null) {
      t.shutdownNow();
    }
    // No HTTP server starts once the listeners are closed.
    closeQuietly(httpStart);
    for (SocketSession s : Set.copyOf(sessions)) {
      s.stopping("the daemon was stopped");
    }
    Sharing sh = sharing;
    if (sh != null) {
      try {
        sh.close();
      } catch (RuntimeException e) {
        LOG.warn("draining the backends: {}", e.toString());
      }
    }
    closeQuietly(watchdog);
    if (lock != null) {
      try {
        Files.deleteIfExists(home.state());
      } catch (IOException e) {
        LOG.warn("could not remove {}: {}", home.state(), e.getMessage());
      }
      closeQuietly(lock);
    }
    LOG.info("daemon {} stopped in {} ms", ProcessHandle.current().pid(), Duration.ofNanos(System.nanoTime() - t0).toMillis());
    stopped.countDown();
  }

  /** Closes {@code c} when there is one, logging (not throwing) what closing it threw. */
  static void closeQuietly(@Nullable AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("stopping {}: {}", c.getClass().getSimpleName(), e.toString());
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The bearer token of the HTTP surfaces: read from the home, or created there (0600). */
  static final class ApiToken {
    private ApiToken() {}

    static String readOrCreate(Path file) throws IOException {
      if (Files.isRegularFile(file)) {
        String t = Files.readString(file, StandardCharsets.US_ASCII).strip();
        if (t.length() >= 32) {
          return t;
        }
        LOG.warn("{} holds no usable token (under 32 characters); writing a new one", file);
      }
      byte[] b = new byte[32];
      new SecureRandom().nextBytes(b);
      AtomicFiles.replace(file, (HexFormat.of().formatHex(b) + "\n").getBytes(StandardCharsets.US_ASCII), AtomicFiles.OWNER_ONLY);
      return Files.readString(file, StandardCharsets.US_ASCII).strip();
    }
  }
}
