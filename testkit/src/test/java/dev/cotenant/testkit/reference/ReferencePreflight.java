package dev.cotenant.testkit.reference;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A small, honest {@link PreflightTransport} over a {@link SessionTransport}: two callers that
 * differ in {@code clientInfo} and capabilities, each on its own session, concurrently; the
 * handshake, {@code tools/list} (all pages) and the advertised listings; the fixed
 * {@link HandshakeComparator}. The yardstick for {@code PreflightTransportContract}; the bite
 * tests' broken pre-flights are this one with one defect each (the overridable methods).
 */
public class ReferencePreflight implements PreflightTransport {
  /** One caller's identity. */
  public record Caller(String label, Map<String, Object> clientInfo, Map<String, Object> capabilities) {}

  /** The first caller: its answer becomes the handshake facts. */
  public static final Caller FIRST = new Caller("a", Map.of("name", "reference-preflight-a", "version", "1.0.0"), Map.of());

  /** The second caller: another name, and client capabilities a server may read. */
  public static final Caller SECOND = new Caller("b", Map.of("name", "reference-preflight-b", "version", "2.0.0"),
      Map.of("roots", Map.of("listChanged", true), "sampling", Map.of()));

  private static final int MAX_PAGES = 100;

  protected final SessionTransport sessions;
  private final Duration timeout;

  /** A pre-flight opening sessions through {@code sessions}, each conversation bounded by {@code timeout}. */
  public ReferencePreflight(SessionTransport sessions, Duration timeout) {
    this.sessions = sessions;
    this.timeout = timeout;
  }

  @Override
  public PreflightResult preflight(ServerDescription server) throws InterruptedException {
    if (server.transport() != Transport.STDIO) {
      return PreflightResult.notRun("not a stdio server");
    }
    if (!server.enabled()) {
      return PreflightResult.notRun("disabled");
    }
    CallerRun a = new CallerRun(server, first());
    CallerRun b = new CallerRun(server, second());
    a.thread.start();
    b.thread.start();
    try {
      a.thread.join();
      b.thread.join();
    } catch (InterruptedException e) {
      a.cancel();
      b.cancel();
      a.thread.join(30_000);
      b.thread.join(30_000);
      throw e;
    }
    if (a.failure != null) {
      return PreflightResult.notRun(a.failure);
    }
    if (b.failure != null) {
      return PreflightResult.notRun(b.failure);
    }
    try {
      return PreflightResult.ran(HandshakeComparator.compare(a.snapshot, b.snapshot), facts(a.snapshot));
    } catch (RuntimeException e) {
      return PreflightResult.notRun("unmeasurable: " + e.getClass().getSimpleName());
    }
  }

  /** The first caller; overridable for the bite tests. */
  protected Caller first() {
    return FIRST;
  }

  /** The second caller; overridable for the bite tests. */
  protected Caller second() {
    return SECOND;
  }

  /** Ends a session after its conversation; overridable for the bite tests. */
  protected void finish(ServerSession session) {
    session.close();
  }

  /** Turns a failure to measure into a reason; overridable for the bite tests. */
  protected String failed(SessionException e) {
    return e.kind().name().toLowerCase(Locale.ROOT) + ": " + e.getMessage();
  }

  private final class CallerRun implements Runnable {
    final ServerDescription server;
    final Caller caller;
    final Thread thread;
    volatile ServerSession session;
    volatile Map<String, Object> snapshot;
    volatile String failure;

    CallerRun(ServerDescription server, Caller caller) {
      this.server = server;
      this.caller = caller;
      this.thread = new Thread(this, "reference-preflight-" + caller.label());
      thread.setDaemon(true);
    }

    void cancel() {
      thread.interrupt();
      ServerSession s = session;
      if (s != null) {
        s.abort("cancelled");
      }
    }

    @Override
    public void run() {
      ServerSession s = null;
      try {
        s = sessions.open(server, "preflight-" + caller.label(), ServerMessageHandler.noUser("a pre-flight has no user"));
        session = s;
        Map<String, Object> answer = s.handshake(HandshakeEra.AUTO, caller.clientInfo(), caller.capabilities(), timeout);
        snapshot = snapshot(s, answer);
      } catch (SessionException e) {
        failure = failed(e);
      } catch (InterruptedException e) {
        failure = "cancelled";
      } catch (RuntimeException e) {
        failure = "unmeasurable: " + e.getClass().getSimpleName();
      } finally {
        if (s != null) {
          finish(s);
        }
      }
    }

    private Map<String, Object> snapshot(ServerSession s, Map<String, Object> answer)
        throws SessionException, InterruptedException {
      Map<String, Object> snap = new LinkedHashMap<>();
      if (s.completedHandshake().orElseThrow() == HandshakeEra.DISCOVER) {
        snap.put(HandshakeComparator.PROTOCOL_VERSION, Mcp.MODERN_VERSION);
        snap.put(HandshakeComparator.SUPPORTED_VERSIONS, answer.get("supportedVersions"));
      } else {
        copy(answer, snap, HandshakeComparator.PROTOCOL_VERSION);
      }
      copy(answer, snap, HandshakeComparator.CAPABILITIES);
      copy(answer, snap, HandshakeComparator.SERVER_INFO);
      snap.put(HandshakeComparator.TOOLS, list(s, "tools/list", "tools"));
      Object caps = answer.get("capabilities");
      if (caps instanceof Map<?, ?> && ((Map<?, ?>) caps).containsKey("prompts")) {
        snap.put(HandshakeComparator.PROMPTS, list(s, "prompts/list", "prompts"));
      }
      if (caps instanceof Map<?, ?> && ((Map<?, ?>) caps).containsKey("resources")) {
        snap.put(HandshakeComparator.RESOURCES, list(s, "resources/list", "resources"));
      }
      return snap;
    }

    private Object list(ServerSession s, String method, String field) throws SessionException, InterruptedException {
      List<Object> items = new ArrayList<>();
      Set<String> cursors = new HashSet<>();
      Optional<String> cursor = Optional.empty();
      for (int page = 0; page < MAX_PAGES; page++) {
        Map<String, Object> params = new LinkedHashMap<>(s.eraMeta(caller.clientInfo(), caller.capabilities()).isEmpty()
            ? Map.of() : Map.of("_meta", s.eraMeta(caller.clientInfo(), caller.capabilities())));
        cursor.ifPresent(c -> params.put("cursor", c));
        Map<String, Object> response;
        try {
          response = s.request(method, params).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          throw new SessionException(SessionException.Kind.TIMEOUT, "no answer to " + method);
        } catch (ExecutionException e) {
          throw e.getCause() instanceof SessionException
              ? (SessionException) e.getCause()
              : new SessionException(SessionException.Kind.ANSWER, method + " failed");
        }
        if (response.containsKey("error")) {
          return "failed: " + ((Map<?, ?>) response.get("error")).get("code");
        }
        Object result = response.get("result");
        if (!(result instanceof Map<?, ?>)) {
          throw new SessionException(SessionException.Kind.ANSWER, method + " answered without a result");
        }
        Object got = ((Map<?, ?>) result).get(field);
        if (got instanceof List<?>) {
          items.addAll((List<?>) got);
        }
        Object next = ((Map<?, ?>) result).get("nextCursor");
        if (!(next instanceof String) || ((String) next).isEmpty() || !cursors.add((String) next)) {
          return items;
        }
        cursor = Optional.of((String) next);
      }
      throw new SessionException(SessionException.Kind.GARBAGE, method + " did not end within " + MAX_PAGES + " pages");
    }
  }

  private static void copy(Map<String, Object> from, Map<String, Object> to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.get(key));
    }
  }

  @SuppressWarnings("unchecked")
  static HandshakeFacts facts(Map<String, Object> snapshot) {
    Object version = snapshot.get(HandshakeComparator.PROTOCOL_VERSION);
    List<ToolFacts> tools = new ArrayList<>();
    Object listed = snapshot.get(HandshakeComparator.TOOLS);
    if (listed instanceof List<?>) {
      for (Object item : (List<?>) listed) {
        if (item instanceof Map<?, ?>) {
          Object name = ((Map<?, ?>) item).get("name");
          Object annotations = ((Map<?, ?>) item).get("annotations");
          tools.add(new ToolFacts(name instanceof String ? (String) name : "",
              annotations instanceof Map<?, ?> ? Optional.of((Map<String, Object>) annotations) : Optional.empty()));
        }
      }
    }
    Object caps = snapshot.get(HandshakeComparator.CAPABILITIES);
    Object info = snapshot.get(HandshakeComparator.SERVER_INFO);
    return HandshakeFacts.fromJson(version instanceof String ? (String) version : "",
        caps instanceof Map<?, ?> ? (Map<String, ?>) caps : Map.of(),
        info instanceof Map<?, ?> ? (Map<String, ?>) info : Map.of(), tools);
  }
}
