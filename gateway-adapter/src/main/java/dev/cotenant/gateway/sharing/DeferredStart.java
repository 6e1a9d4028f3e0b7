package dev.cotenant.gateway.sharing;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.mux.ClientSink;
import dev.cotenant.gateway.mux.LogLevel;
import dev.cotenant.spi.StartRecording;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A session's start answered from the records until its backend starts (docs/pool.md, "Deferred
 * backends"): {@code initialize} (the recorded result, with the version negotiated for the version
 * the client asked), {@code notifications/initialized}, {@code ping}, the recorded listings page by
 * page, and {@code logging/setLevel} when the server advertises {@code logging} (the level is kept
 * and set once the backend runs); {@code notifications/roots/list_changed} is dropped (a server
 * started later asks for the roots as they are then). Anything else needs the backend. Not
 * thread-safe: its
 * {@link ClientSession} calls it under its lock.
 */
final class DeferredStart {
  /** Where the session was placed when it connected (its backend starts where the verdict says then). */
  final PlacementDecision wanted;
  final StartRecording start;
  /** The protocol version the client asked for. */
  final String requested;
  /** The level the client asked for, to set once the backend runs; null while it asked none. */
  @Nullable LogLevel level;
  /** What the session was answered from the records: {@code initialize} and listing methods. */
  final Set<String> served = new TreeSet<>();

  DeferredStart(PlacementDecision wanted, StartRecording start, String requested) {
    this.wanted = wanted;
    this.start = start;
    this.requested = requested;
  }

  /**
   * Answers {@code message} to {@code client} from the records when they hold its answer; false
   * when it needs the backend (which starts for it).
   */
  boolean answer(RpcMessage message, ClientSink client) {
    if (message instanceof RpcMessage.Notification n) {
      // The client's initialized is the backend's own at its start; a cancellation can only name
      // a request answered already; a server started later asks for the roots as they are then.
      return "notifications/initialized".equals(n.method()) || "notifications/cancelled".equals(n.method())
          || "notifications/roots/list_changed".equals(n.method());
    }
    if (!(message instanceof RpcMessage.Request r)) {
      // An answer: nothing was asked of the client yet.
      return true;
    }
    switch (r.method()) {
      case "initialize": {
        Optional<Map<String, Object>> result = start.initializeResult(requested);
        if (result.isEmpty()) {
          return false;
        }
        served.add("initialize");
        client.send(Envelope.result(r.id(), result.get()));
        return true;
      }
      case "ping":
        client.send(Envelope.result(r.id(), Map.of()));
        return true;
      case "logging/setLevel": {
        if (!advertises("logging")) {
          return false;
        }
        Optional<LogLevel> l = LogLevel.parse(r.paramsOrEmpty().get("level"));
        if (l.isEmpty()) {
          client.send(Envelope.error(r.id(), ErrorCode.INVALID_PARAMS, "Invalid params: unknown logging level '"
              + LogSafe.escape(String.valueOf(r.paramsOrEmpty().get("level")), 40) + "'; expected one of "
              + LogLevel.names()));
          return true;
        }
        level = l.get();
        client.send(Envelope.result(r.id(), Map.of()));
        return true;
      }
      case "tools/list":
      case "prompts/list":
      case "resources/list":
      case "resources/templates/list": {
        Optional<Map<String, Object>> page = start.page(r.method(), r.paramsOrEmpty().get("cursor"));
        if (page.isEmpty()) {
          return false;
        }
        served.add(r.method());
        client.send(Envelope.answer(r.id(), page.get()));
        return true;
      }
      default:
        return false;
    }
  }

  private boolean advertises(String capability) {
    return start.initializeResult().get("capabilities") instanceof Map<?, ?> caps && caps.containsKey(capability);
  }
}
