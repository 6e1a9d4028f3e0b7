package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ServerDescription;
import java.math.BigInteger;
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
  private final ServerDescription server;
  private final Caller caller;
  private final PreflightSettings settings;
  private final JsonMapper mapper;
  private final long deadline;
  private volatile ServerProcess current;
  private volatile String abortReason;
  private long nextId = 1;
  /** In {@link Era#AUTO}: the id of a {@code server/discover} that timed out on a process still in use, or -1. */
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
  Map<String, Object> run() throws HandshakeFailure, InterruptedException {
    try {
      return converse();
    } catch (HandshakeFailure f) {
      if (abortReason != null) {
        throw new HandshakeFailure(HandshakeFailure.Kind.TIMEOUT, abortReason);
      }
      throw f;
    } finally {
      ServerProcess p = current;
      if (p != null) {
        p.teardown();
      }
    }
  }

  private Map<String, Object> converse() throws HandshakeFailure, InterruptedException {
    ServerProcess p = spawn();
    switch (settings.era()) {
      case INITIALIZE:
        return initialize(p);
      case DISCOVER:
        return modern(p, discover(p, deadline));
      case AUTO:
      default:
        long discoverDeadline = Math.min(deadline, System.nanoTime() + settings.discoverTimeout().toNanos());
        long discoverId = nextId;
        try {
          return modern(p, discover(p, discoverDeadline));
        } catch (HandshakeFailure f) {
          boolean fallBack = f.kind() == HandshakeFailure.Kind.ANSWER
              || f.kind() == HandshakeFailure.Kind.EXITED
              || (f.kind() == HandshakeFailure.Kind.TIMEOUT && System.nanoTime() < deadline);
          if (!fallBack || abortReason != null) {
            throw f;
          }
          if (f.kind() == HandshakeFailure.Kind.EXITED || !p.alive()) {
            p.teardown();
            p = spawn();
          } else if (f.kind() == HandshakeFailure.Kind.TIMEOUT) {
            // A server slower to start than the discover timeout may still answer it.
            lateDiscoverId = discoverId;
          }
          try {
            return initialize(p);
          } catch (HandshakeFailure refused) {
            Optional<Map<String, Object>> late = lateDiscoverAnswer(p, refused);
            if (late.isPresent()) {
              return modern(p, late.get());
            }
            throw refused;
          }
        }
    }
  }

  private ServerProcess spawn() throws HandshakeFailure, InterruptedException {
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

  /** {@code server/discover}; the answer when it offers {@value StdioPreflightTransport#MODERN_VERSION}. */
  private Map<String, Object> discover(ServerProcess p, long until) throws HandshakeFailure, InterruptedException {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("_meta", meta());
    return offersModern(requireResult(request(p, "server/discover", params, until), "server/discover"));
  }

  /** The {@code server/discover} result, when it offers {@value StdioPreflightTransport#MODERN_VERSION}. */
  private static Map<String, Object> offersModern(Map<String, Object> result) throws HandshakeFailure {
    Object supported = result.get(HandshakeComparator.SUPPORTED_VERSIONS);
    if (!(supported instanceof List<?>) || !((List<?>) supported).contains(StdioPreflightTransport.MODERN_VERSION)) {
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, "server/discover did not offer "
          + StdioPreflightTransport.MODERN_VERSION + " (offered " + LogSafe.escape(String.valueOf(supported), 80) + ")");
    }
    return result;
  }

  /**
   * After the fallback's {@code initialize} was refused: the answer to a {@code server/discover}
   * that timed out on the same process, when it offers {@value StdioPreflightTransport#MODERN_VERSION}
   * (a 2026-07-28 server that was only slow to start). Waits for it at most the discover timeout
   * again, within the deadline.
   */
  private Optional<Map<String, Object>> lateDiscoverAnswer(ServerProcess p, HandshakeFailure refused)
      throws InterruptedException {
    if (refused.kind() != HandshakeFailure.Kind.ANSWER || lateDiscoverId < 0 || abortReason != null) {
      return Optional.empty();
    }
    try {
      Map<String, Object> response = lateDiscover;
      if (response == null) {
        long until = Math.min(deadline, System.nanoTime() + settings.discoverTimeout().toNanos());
        response = await(p, lateDiscoverId, "server/discover", until);
      }
      return Optional.of(offersModern(requireResult(response, "server/discover")));
    } catch (HandshakeFailure f) {
      return Optional.empty();
    }
  }

  private Map<String, Object> modern(ServerProcess p, Map<String, Object> discovered)
      throws HandshakeFailure, InterruptedException {
    Map<String, Object> snapshot = new LinkedHashMap<>();
    snapshot.put(HandshakeComparator.PROTOCOL_VERSION, StdioPreflightTransport.MODERN_VERSION);
    snapshot.put(HandshakeComparator.SUPPORTED_VERSIONS, discovered.get(HandshakeComparator.SUPPORTED_VERSIONS));
    copy(discovered, snapshot, HandshakeComparator.CAPABILITIES);
    copy(discovered, snapshot, HandshakeComparator.SERVER_INFO);
    listings(p, snapshot, true);
    return snapshot;
  }

  private Map<String, Object> initialize(ServerProcess p) throws HandshakeFailure, InterruptedException {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("protocolVersion", StdioPreflightTransport.LEGACY_VERSION);
    params.put("capabilities", caller.capabilities());
    params.put("clientInfo", caller.clientInfo());
    Map<String, Object> result = requireResult(request(p, "initialize", params, deadline), "initialize");
    Map<String, Object> note = new LinkedHashMap<>();
    note.put("jsonrpc", "2.0");
    note.put("method", "notifications/initialized");
    p.send(note, "after answering initialize");
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
      throws HandshakeFailure, InterruptedException {
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
      throws HandshakeFailure, InterruptedException {
    List<Object> items = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Optional<String> cursor = Optional.empty();
    for (int page = 1; ; page++) {
      if (page > settings.maxListPages()) {
        throw new HandshakeFailure(HandshakeFailure.Kind.GARBAGE,
            method + " did not end within " + settings.maxListPages() + " pages");
      }
      Map<String, Object> params = new LinkedHashMap<>();
      cursor.ifPresent(c -> params.put("cursor", c));
      if (modern) {
        params.put("_meta", meta());
      }
      Map<String, Object> response = request(p, method, params, deadline);
      if (response.containsKey("error")) {
        return "failed: " + errorCode(response);
      }
      Object result = response.get("result");
      if (!(result instanceof Map<?, ?>)) {
        throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, method + " answered without a result object");
      }
      Object page0 = ((Map<?, ?>) result).get(field);
      if (page0 instanceof List<?>) {
        items.addAll((List<?>) page0);
        if (items.size() > settings.maxListItems()) {
          throw new HandshakeFailure(HandshakeFailure.Kind.GARBAGE,
              method + " listed more than " + settings.maxListItems() + " items");
        }
      } else if (page0 != null) {
        throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, method + " answered " + field + " that is not a list");
      }
      Object next = ((Map<?, ?>) result).get("nextCursor");
      if (!(next instanceof String) || ((String) next).isEmpty()) {
        return items;
      }
      if (!seen.add((String) next)) {
        throw new HandshakeFailure(HandshakeFailure.Kind.GARBAGE, method + " repeated a nextCursor (a loop)");
      }
      cursor = Optional.of((String) next);
    }
  }

  private Map<String, Object> meta() {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("io.modelcontextprotocol/protocolVersion", StdioPreflightTransport.MODERN_VERSION);
    meta.put("io.modelcontextprotocol/clientCapabilities", caller.capabilities());
    meta.put("io.modelcontextprotocol/clientInfo", caller.clientInfo());
    return meta;
  }

  private static Map<String, Object> requireResult(Map<String, Object> response, String method) throws HandshakeFailure {
    if (response.containsKey("error")) {
      Object err = response.get("error");
      String msg = err instanceof Map<?, ?> && ((Map<?, ?>) err).get("message") instanceof String
          ? ": " + LogSafe.escape((String) ((Map<?, ?>) err).get("message"), 80) : "";
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER,
          method + " answered error " + errorCode(response) + msg);
    }
    Object result = response.get("result");
    if (!(result instanceof Map<?, ?>)) {
      throw new HandshakeFailure(HandshakeFailure.Kind.ANSWER, method + " answered without a result object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) result;
    return map;
  }

  private static String errorCode(Map<String, Object> response) {
    Object err = response.get("error");
    Object code = err instanceof Map<?, ?> ? ((Map<?, ?>) err).get("code") : null;
    return code instanceof Number ? String.valueOf(code) : "?";
  }

  /**
   * Sends one request and waits for the response with its id, answering what the server asks in
   * the meantime and skipping notifications and responses to other ids.
   */
  private Map<String, Object> request(ServerProcess p, String method, Map<String, Object> params, long until)
      throws HandshakeFailure, InterruptedException {
    long id = nextId++;
    Map<String, Object> message = new LinkedHashMap<>();
    message.put("jsonrpc", "2.0");
    message.put("id", id);
    message.put("method", method);
    message.put("params", params);
    p.send(message, "before answering " + method);
    return await(p, id, method, until);
  }

  /**
   * Waits for the response with {@code id}, answering what the server asks in the meantime and
   * skipping notifications and responses to other ids (keeping a late {@code server/discover}
   * answer aside).
   */
  private Map<String, Object> await(ServerProcess p, long id, String method, long until)
      throws HandshakeFailure, InterruptedException {
    while (true) {
      Optional<ServerProcess.Event> event = p.next(until);
      if (event.isEmpty()) {
        if (abortReason != null) {
          throw new HandshakeFailure(HandshakeFailure.Kind.TIMEOUT, abortReason);
        }
        long waited = until == deadline ? settings.timeout().toMillis() : settings.discoverTimeout().toMillis();
        throw new HandshakeFailure(HandshakeFailure.Kind.TIMEOUT,
            "timed out after " + waited + " ms waiting for " + method);
      }
      ServerProcess.Event e = event.get();
      if (e instanceof ServerProcess.Fatal) {
        throw new HandshakeFailure(HandshakeFailure.Kind.GARBAGE, ((ServerProcess.Fatal) e).reason());
      }
      if (e instanceof ServerProcess.Eof) {
        throw p.exited("before answering " + method);
      }
      Map<String, Object> json = ((ServerProcess.Message) e).json();
      Object m = json.get("method");
      if (m instanceof String) {
        if (json.containsKey("id")) {
          answer(p, json.get("id"), (String) m);
        }
        continue;
      }
      if (sameId(json.get("id"), id) && (json.containsKey("result") || json.containsKey("error"))) {
        return json;
      }
      if (lateDiscoverId >= 0 && sameId(json.get("id"), lateDiscoverId) && json.containsKey("result")) {
        lateDiscover = json;
      }
    }
  }

  private static boolean sameId(Object value, long id) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return ((Number) value).longValue() == id;
    }
    if (value instanceof BigInteger) {
      return value.equals(BigInteger.valueOf(id));
    }
    return false;
  }

  /** Answers a request the server sent during the handshake. */
  private void answer(ServerProcess p, Object requestId, String method) throws HandshakeFailure {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("jsonrpc", "2.0");
    reply.put("id", requestId);
    switch (method) {
      case "roots/list":
        reply.put("result", Map.of("roots", List.of()));
        break;
      case "ping":
        reply.put("result", Map.of());
        break;
      case "sampling/createMessage":
      case "elicitation/create":
        reply.put("error", Map.of("code", -1, "message", "declined: a pre-flight has no user to ask"));
        break;
      default:
        reply.put("error", Map.of("code", -32601, "message", "Method not found"));
    }
    p.send(reply, "during the handshake");
  }
}
