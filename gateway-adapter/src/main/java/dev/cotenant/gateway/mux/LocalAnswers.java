package dev.cotenant.gateway.mux;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.RequestId;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link Multiplexer} answers a client itself, without the backend (rules 3, 4, 5 and 8):
 * {@code initialize} from the cached handshake, {@code ping}, {@code server/discover},
 * {@code logging/setLevel} (through {@link LogLevels}), and {@code resources/subscribe} and
 * {@code resources/unsubscribe} (through {@link Subscriptions}). Stateless.
 */
final class LocalAnswers {
  private LocalAnswers() {}

  /** Answers request {@code id} of {@code c} when the multiplexer answers it itself; false when it goes to the backend. */
  static boolean answer(Multiplexer mux, Bound b, Channel c, RequestId id, String method, Map<String, Object> params) {
    switch (method) {
      case "initialize":
        mux.deliver(c, Envelope.result(id, EraBridge.initializeResult(b, c, params)));
        return true;
      case "ping":
        mux.deliver(c, Envelope.result(id, Map.of()));
        return true;
      case "server/discover":
        mux.deliver(c, b.discover() ? Envelope.result(id, b.handshake())
            : Envelope.error(id, ErrorCode.METHOD_NOT_FOUND,
                "Method not found: server/discover (the backend speaks the initialize era)"));
        return true;
      case "logging/setLevel":
        Optional<LogLevel> l = LogLevel.parse(params.get("level"));
        if (l.isEmpty()) {
          mux.deliver(c, Envelope.error(id, ErrorCode.INVALID_PARAMS, "Invalid params: unknown logging level '"
              + LogSafe.escape(String.valueOf(params.get("level")), 40) + "'; expected one of " + LogLevel.names()));
          return true;
        }
        mux.levels.set(c, l.get());
        mux.deliver(c, Envelope.result(id, Map.of()));
        return true;
      case "resources/subscribe":
        mux.subscriptions.subscribe(b, c, id, params);
        return true;
      case "resources/unsubscribe":
        mux.subscriptions.unsubscribe(b, c, id, params);
        return true;
      default:
        return false;
    }
  }
}
