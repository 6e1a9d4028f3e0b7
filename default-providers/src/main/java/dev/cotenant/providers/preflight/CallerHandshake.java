package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.SessionException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * One caller's whole conversation with one server: spawn, the era's handshake, {@code tools/list}
 * (following {@code nextCursor}) and the advertised read-only listings, then teardown. Produces
 * the handshake snapshot {@link HandshakeComparator} reads. Runs on one thread;
 * {@link #abort} may be called from any thread.
 */
final class CallerHandshake {
  /** The error a server's {@code sampling/createMessage} or {@code elicitation/create} is answered with. */
  private static final String DECLINED = "declined: a pre-flight has no user to ask";

  private final ServerDescription server;
  private final Caller caller;
  private final PreflightSettings settings;
  private final JsonMapper mapper;
  private final long deadline;
  private volatile ServerProcess current;
  private volatile String abortReason;
  private long nextId = 1;
  /** In {@link HandshakeEra#AUTO}: the id of a {@code server/discover} that timed out on a process still in use, or -1. */
  private long lateDiscoverId = -1;
  /** Its answer, when it arrived while another response was awaited. */
  private Map<String, Object> lateDiscover;

  CallerHandshake(ServerDescription server, Caller caller, PreflightSettings settings, JsonMapper mapper) {
    this.server = server;
    this.caller = caller;
    this.settings = settings;
    this.mapper = mapper;
    this.deadline = System.nanoTime() + settings.timeout().toNanos();
  }

  /**
   * Ends the conversation from another thread (the watchdog, or cancellation): the processes are
   * killed, which unblocks any read or write in progress.
   */
  void abort(String reason) {
    abortReason = reason;
    ServerProcess p = current;
    if (p != null) {
      p.kill();
    }
  }

  /** Runs the conversation and always tears the processes down before returning. */
  Map<String, Object> run() throws SessionException, InterruptedException {
    try {
      return converse();
    } catch (SessionException f) {
      if (abortReason != null) {
        throw new SessionException(SessionException.Kind.TIMEOUT, abortReason);
      }
      throw f;
    } finally {
      ServerProcess p = current;
      if (p != null) {
        p.teardown();
      }
    }
  }

  private Map<String, Object> converse() throws SessionException, InterruptedException {
    ServerProcess p = spawn();
    switch (settings.era()) {
      case INITIALIZE:
        return initialize(p);
      case DISCOVER:
        return modern(p, discover(p, deadline));
      case AUTO:
      default:
        long discoverDeadline = JsonRpc.discoverDeadline(settings.discoverTimeout(), deadline);
        long discoverId = nextId;
        try {
          return modern(p, discover(p, discoverDeadline));
        } catch (SessionException f) {
          if (!JsonRpc.fallsBackAfterDiscover(f.kind(), deadline) || abortReason != null) {
            throw f;
          }
          if (f.kind() == SessionException.Kind.EXITED || !p.alive()) {
            p.teardown();
            p = spawn();
          } else if (f.kind() == SessionException.Kind.TIMEOUT) {
            // A server slower to start than the discover timeout may still answer it.
            lateDiscoverId = discoverId;
          }
          try {
            return initialize(p);
          } catch (SessionException refused) {
            Optional<Map<String, Object>> late = lateDiscoverAnswer(p, refused);
            if (late.isPresent()) {
              return modern(p, late.get());
            }
            throw refused;
          }
        }
    }
  }

  private ServerProcess spawn() throws SessionException, InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    ServerProcess p = ServerProcess.start(server, settings, mapper, caller.label());
    current = p;
    if (abortReason != null) {
      p.kill();
    }
    return p;
  }

  /** {@code server/discover}; the answer when it offers {@value Mcp#MODERN_VERSION}. */
  private Map<String, Object> discover(ServerProcess p, long until) throws SessionException, InterruptedException {
    Map<String, Object> params = JsonRpc.discoverParams(caller.clientInfo(), caller.capabilities());
    return JsonRpc.offersModern(JsonRpc.result(request(p, "server/discover", params, until), "server/discover"));
  }

  /**
   * After the fallback's {@code initialize} was refused: the answer to a {@code server/discover}
   * that timed out on the same process, when it offers {@value Mcp#MODERN_VERSION}
   * (a 2026-07-28 server that was only slow to start). Waits for it at most the discover timeout
   * again, within the deadline.
   */
  private Optional<Map<String, Object>> lateDiscoverAnswer(ServerProcess p, SessionException refused)
      throws InterruptedException {
    if (refused.kind() != SessionException.Kind.ANSWER || lateDiscoverId < 0 || abortReason != null) {
      return Optional.empty();
    }
    try {
      Map<String, Object> response = lateDiscover;
      if (response == null) {
        response = await(p, lateDiscoverId, "server/discover", JsonRpc.discoverDeadline(settings.discoverTimeout(), deadline));
      }
      return Optional.of(JsonRpc.offersModern(JsonRpc.result(response, "server/discover")));
    } catch (SessionException f) {
      return Optional.empty();
    }
  }

  private Map<String, Object> modern(ServerProcess p, Map<String, Object> discovered)
      throws SessionException, InterruptedException {
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put(HandshakeComparator.PROTOCOL_VERSION, Mcp.MODERN_VERSION);
    snapshot.put(HandshakeComparator.SUPPORTED_VERSIONS, discovered.get(HandshakeComparator.SUPPORTED_VERSIONS));
    copy(discovered, snapshot, HandshakeComparator.CAPABILITIES);
    copy(discovered, snapshot, HandshakeComparator.SERVER_INFO);
    listings(p, snapshot, true);
    return snapshot;
  }

  private Map<String, Object> initialize(ServerProcess p) throws SessionException, InterruptedException {
    Map<String, Object> params = JsonRpc.initializeParams(caller.clientInfo(), caller.capabilities());
    Map<String, Object> result = JsonRpc.result(request(p, "initialize", params, deadline), "initialize");
    p.send(JsonRpc.notification("notifications/initialized", null), "after answering initialize");
    Map<String, Object> snapshot = new LinkedHashMap<>();
    copy(result, snapshot, HandshakeComparator.PROTOCOL_VERSION);
    copy(result, snapshot, HandshakeComparator.CAPABILITIES);
    copy(result, snapshot, HandshakeComparator.SERVER_INFO);
    listings(p, snapshot, false);
    return snapshot;
  }

  private static void copy(Map<String, Object> from, Map<String, Object> to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.get(key));
    }
  }

  /** {@code tools/list} always (it is mandatory in every revision); prompts and resources when advertised. */
  private void listings(ServerProcess p, Map<String, Object> snapshot, boolean modern)
      throws SessionException, InterruptedException {
    snapshot.put(HandshakeComparator.TOOLS, list(p, "tools/list", "tools", modern));
    Object caps = snapshot.get(HandshakeComparator.CAPABILITIES);
    if (caps instanceof Map<?, ?>) {
      if (((Map<?, ?>) caps).containsKey("prompts")) {
        snapshot.put(HandshakeComparator.PROMPTS, list(p, "prompts/list", "prompts", modern));
      }
      if (((Map<?, ?>) caps).containsKey("resources")) {
        snapshot.put(HandshakeComparator.RESOURCES, list(p, "resources/list", "resources", modern));
      }
    }
  }

  /**
   * Every item of a paginated listing, or a {@code "failed: <code>"} marker when the server
   * answered with an error. Bounded by pages and items; a repeated cursor is a loop.
   */
  private Object list(ServerProcess p, String method, String field, boolean modern)
      throws SessionException, InterruptedException {
    List<Object> items = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Optional<String> cursor = Optional.empty();
    for (int page = 1; ; page++) {
      if (page > settings.maxListPages()) {
        throw new SessionException(SessionException.Kind.GARBAGE,
            method + " did not end within " + settings.maxListPages() + " pages");
      }
      Map<String, Object> params = new LinkedHashMap<>();
      cursor.ifPresent(c -> params.put("cursor", c));
      if (modern) {
        params.put("_meta", Mcp.modernMeta(caller.clientInfo(), caller.capabilities()));
      }
      Map<String, Object> response = request(p, method, params, deadline);
      if (response.containsKey("error")) {
        return "failed: " + JsonRpc.errorCode(response);
      }
      Object result = response.get("result");
      if (!(result instanceof Map<?, ?>)) {
        throw new SessionException(SessionException.Kind.ANSWER, method + " answered without a result object");
      }
      Object page0 = ((Map<?, ?>) result).get(field);
      if (page0 instanceof List<?>) {
        items.addAll((List<?>) page0);
        if (items.size() > settings.maxListItems()) {
          throw new SessionException(SessionException.Kind.GARBAGE,
              method + " listed more than " + settings.maxListItems() + " items");
        }
      } else if (page0 != null) {
        throw new SessionException(SessionException.Kind.ANSWER, method + " answered " + field + " that is not a list");
      }
      Object next = ((Map<?, ?>) result).get("nextCursor");
      if (!(next instanceof String) || ((String) next).isEmpty()) {
        return items;
      }
      if (!seen.add((String) next)) {
        throw new SessionException(SessionException.Kind.GARBAGE, method + " repeated a nextCursor (a loop)");
      }
      cursor = Optional.of((String) next);
    }
  }

  /**
   * Sends one request and waits for the response with its id, answering what the server asks in
   * the meantime and skipping notifications and responses to other ids.
   */
  private Map<String, Object> request(ServerProcess p, String method, Map<String, Object> params, long until)
      throws SessionException, InterruptedException {
    long id = nextId++;
    p.send(JsonRpc.request(id, method, params), "before answering " + method);
    return await(p, id, method, until);
  }

  /**
   * Waits for the response with {@code id}, answering what the server asks in the meantime and
   * skipping notifications and responses to other ids (keeping a late {@code server/discover}
   * answer aside).
   */
  private Map<String, Object> await(ServerProcess p, long id, String method, long until)
      throws SessionException, InterruptedException {
    while (true) {
      Optional<ServerProcess.Event> event = p.next(until);
      if (event.isEmpty()) {
        if (abortReason != null) {
          throw new SessionException(SessionException.Kind.TIMEOUT, abortReason);
        }
        long waited = until == deadline ? settings.timeout().toMillis() : settings.discoverTimeout().toMillis();
        throw new SessionException(SessionException.Kind.TIMEOUT,
            "timed out after " + waited + " ms waiting for " + method);
      }
      ServerProcess.Event e = event.get();
      if (e instanceof ServerProcess.Fatal) {
        throw new SessionException(SessionException.Kind.GARBAGE, ((ServerProcess.Fatal) e).reason());
      }
      if (e instanceof ServerProcess.Eof) {
        throw p.exited("before answering " + method);
      }
      Map<String, Object> json = ((ServerProcess.Message) e).json();
      if (JsonRpc.answerIfFromServer(p, json, DECLINED, "during the handshake")) {
        continue;
      }
      Optional<Long> answered = JsonRpc.responseId(json);
      if (answered.isPresent() && answered.get() == id) {
        return json;
      }
      if (lateDiscoverId >= 0 && answered.isPresent() && answered.get() == lateDiscoverId
          && json.containsKey("result")) {
        lateDiscover = json;
      }
    }
  }
}
