package dev.cotenant.gateway.probe;

import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.RpcMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the probes wait for an answer and read it: once, as a {@link RpcMessage.Response}.
 * Stateless.
 */
final class ProbeAnswers {
  private ProbeAnswers() {}

  /**
   * Waits for {@code answer} until {@code deadlineNanos} and classifies it.
   *
   * @param what the call, as a timeout names it ({@code "no answer to <what> in 10 s"})
   * @param timeout the time limit the timeout names
   * @param failed how a failure of the answer's future begins ({@code "<failed>: <cause>"})
   * @throws SessionException the session's failure, a timeout, or an answer that is not a response
   */
  static RpcMessage.Response await(
      CompletableFuture<Map<String, Object>> answer, long deadlineNanos, String what, Duration timeout, String failed)
      throws SessionException, InterruptedException {
    Map<String, Object> message;
    try {
      message = answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SessionException(SessionException.Kind.TIMEOUT,
          "no answer to " + what + " in " + StatelessnessProbe.duration(timeout.toMillis()));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SessionException s) {
        throw s;
      }
      throw new SessionException(SessionException.Kind.GARBAGE,
          failed + ": " + (e.getCause() == null ? "unknown" : e.getCause().getClass().getSimpleName()));
    }
    try {
      if (RpcMessage.read(message) instanceof RpcMessage.Response r) {
        return r;
      }
      throw new SessionException(SessionException.Kind.GARBAGE, "the answer to " + what + " is not a response");
    } catch (RpcMessage.InvalidMessage e) {
      throw new SessionException(SessionException.Kind.GARBAGE,
          "the answer to " + what + " is not a JSON-RPC response: " + e.getMessage());
    }
  }

  /** True when an answer proves nothing: a JSON-RPC error, or a result with {@code isError: true}. */
  static boolean failed(RpcMessage.Response answer) {
    return answer.isError()
        || (answer.result() instanceof Map<?, ?> result && Boolean.TRUE.equals(result.get("isError")));
  }
}
