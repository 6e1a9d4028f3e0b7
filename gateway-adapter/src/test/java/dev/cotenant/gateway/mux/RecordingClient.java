package dev.cotenant.gateway.mux;

import dev.cotenant.spi.rpc.RequestId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A client session's end of a {@link Multiplexer}: records every message it is sent, can answer
 * the server requests routed to it, and lets a test wait for one answer without sleeping.
 * Thread-safe.
 */
final class RecordingClient implements ClientSink {
  /** A wait that only ends a broken test: nothing here asserts on time. */
  static final long WAIT_SECONDS = 60;

  final String name;
  final List<Map<String, Object>> received = new CopyOnWriteArrayList<>();
  private final Map<String, CompletableFuture<Map<String, Object>>> answers = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Map<String, Object>>> firstOfMethod = new ConcurrentHashMap<>();
  /** How this client answers a server request routed to it: a whole message without id, or null to stay silent. */
  volatile Function<Map<String, Object>, Map<String, Object>> onServerRequest = r -> null;
  volatile ClientChannel channel;

  RecordingClient(String name) {
    this.name = name;
  }

  /** Attaches to {@code mux} with {@code initializeParams}, failing unless it is attached. */
  static RecordingClient attach(Multiplexer mux, String name, Map<String, Object> initializeParams) {
    RecordingClient c = new RecordingClient(name);
    Attach a = mux.attach(name, initializeParams, c);
    if (!(a instanceof Attach.Attached)) {
      throw new AssertionError(name + " was not attached: " + a);
    }
    c.channel = ((Attach.Attached) a).channel();
    return c;
  }

  /**
   * Legacy initialize params naming {@code name}, of a client declaring {@code roots},
   * {@code sampling} and {@code elicitation}: the server's requests are its to answer.
   */
  static Map<String, Object> legacy(String name, String version) {
    return legacy(name, version, CAPABLE);
  }

  /** What {@link #legacy(String, String)} declares. */
  static final Map<String, Object> CAPABLE = Map.of("roots", Map.of(), "sampling", Map.of(), "elicitation", Map.of());

  /** Legacy initialize params naming {@code name}, declaring {@code capabilities}. */
  static Map<String, Object> legacy(String name, String version, Map<String, Object> capabilities) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("protocolVersion", version);
    p.put("clientInfo", Map.of("name", name, "version", "1.0.0"));
    p.put("capabilities", capabilities);
    return p;
  }

  @Override
  public void send(Map<String, Object> message) {
    received.add(message);
    Object method = message.get("method");
    if (method instanceof String) {
      firstOfMethod.computeIfAbsent((String) method, k -> new CompletableFuture<>()).complete(message);
      if (message.containsKey("id")) {
        Map<String, Object> reply = onServerRequest.apply(message);
        if (reply != null) {
          Map<String, Object> m = new LinkedHashMap<>(reply);
          m.put("jsonrpc", "2.0");
          m.put("id", message.get("id"));
          Objects.requireNonNull(channel, "channel").fromClient(m);
        }
      }
      return;
    }
    answers.computeIfAbsent(Objects.requireNonNull(key(message.get("id"))), k -> new CompletableFuture<>())
        .complete(message);
  }

  /** Sends a request through the channel. */
  void request(Object id, String method, Map<String, Object> params) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("id", id);
    m.put("method", method);
    m.put("params", params);
    channel.fromClient(m);
  }

  /** Sends a notification through the channel. */
  void notification(String method, Map<String, Object> params) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jsonrpc", "2.0");
    m.put("method", method);
    m.put("params", params);
    channel.fromClient(m);
  }

  /** Sends a request and waits for its answer. */
  Map<String, Object> call(Object id, String method, Map<String, Object> params) throws Exception {
    request(id, method, params);
    return await(id);
  }

  /** Waits for the answer to {@code id}. */
  Map<String, Object> await(Object id) throws InterruptedException, ExecutionException, TimeoutException {
    return answers.computeIfAbsent(Objects.requireNonNull(key(id)), k -> new CompletableFuture<>())
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** Waits for the first message of {@code method} sent to this client. */
  Map<String, Object> awaitFirst(String method) throws InterruptedException, ExecutionException, TimeoutException {
    return firstOfMethod.computeIfAbsent(method, k -> new CompletableFuture<>()).get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** Every answer received (messages without a method). */
  List<Map<String, Object>> answers() {
    return received.stream().filter(m -> !m.containsKey("method")).collect(Collectors.toList());
  }

  /** Every answer received to {@code id} (same type and value). */
  List<Map<String, Object>> answersTo(Object id) {
    String key = key(id);
    return received.stream().filter(m -> !m.containsKey("method") && Objects.equals(key(m.get("id")), key))
        .collect(Collectors.toList());
  }

  /** Every message of {@code method} received. */
  List<Map<String, Object>> messages(String method) {
    return received.stream().filter(m -> method.equals(m.get("method"))).collect(Collectors.toList());
  }

  /** The {@code params} of every message of {@code method} received. */
  @SuppressWarnings("unchecked")
  List<Map<String, Object>> params(String method) {
    List<Map<String, Object>> out = new ArrayList<>();
    messages(method).forEach(m -> out.add((Map<String, Object>) m.get("params")));
    return out;
  }

  /** The {@code result} of an answer, failing when it is an error. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> result(Map<String, Object> answer) {
    if (!answer.containsKey("result")) {
      throw new AssertionError("expected a result, got " + answer);
    }
    return (Map<String, Object>) answer.get("result");
  }

  /** The {@code error} of an answer, failing when it is a result. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> error(Map<String, Object> answer) {
    if (!answer.containsKey("error")) {
      throw new AssertionError("expected an error, got " + answer);
    }
    return (Map<String, Object>) answer.get("error");
  }

  @Override
  public String toString() {
    return name + received;
  }

  /** The text key of a JSON-RPC id ({@link RequestId#key()}); null for a value that is no id. */
  static @Nullable String key(@Nullable Object id) {
    RequestId r = RequestId.parse(id);
    return r == null ? null : r.key();
  }
}
