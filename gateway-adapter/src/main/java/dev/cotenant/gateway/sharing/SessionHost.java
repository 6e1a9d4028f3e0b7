package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.pool.Lease;
import dev.cotenant.gateway.pool.PoolException;
import dev.cotenant.gateway.pool.PoolKey;
import dev.cotenant.spi.ConcurrencyLimiter.Permit;
import dev.cotenant.spi.rpc.ErrorCode;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ClientSession} asks of the runtime that connected it ({@link Sharing}): a backend
 * for a placement, whether its backend is still the one to use, and a slot for a call. The whole
 * of the session's view of {@link Sharing}; implemented there.
 */
interface SessionHost {
  /**
   * Acquires a lease on the backend of {@code placement} for session {@code sessionId}, starting
   * it (with this session's initialize params and shape) when none runs.
   */
  Lease<MuxBackend> acquire(ServerDescription server, String sessionId, PlacementDecision placement,
      Map<String, Object> initializeParams, ClientShape shape) throws PoolException, InterruptedException;

  /**
   * Whether a new session of {@code server} whose client's {@code initialize} had
   * {@code initializeParams} is answered its start from the records, and why.
   */
  StartDecision start(ServerDescription server, Map<String, Object> initializeParams);

  /** Says {@code session} closed. */
  void closed(ClientSession session);

  /** Forgets how a dedicated entry starts, once its session has left it. */
  void forget(PoolKey key);

  /** Whether a hazard was observed on the shared backend of {@code key}. */
  boolean hazardous(PoolKey key);

  /** Counts the times the records changed ({@link Sharing#recordsChanged}). */
  long recordsRevision();

  /** Where a new session of {@code server} from a client of {@code shape} would go now, and why. */
  PlacementDecision placement(ServerDescription server, ClientShape shape);

  /** How long a session waits for a backend being started or restarted. */
  Duration backendTimeout();

  /** Waits for a slot for one {@code tools/call} under the server's {@code maxConcurrent}. */
  Admission admit(ServerDescription server) throws InterruptedException;

  /**
   * What admission said of one call: admitted, holding {@code permit} (null when the server sets
   * no limit), or refused with {@code refusal} and {@code message}.
   */
  record Admission(@Nullable Permit permit, @Nullable ErrorCode refusal, String message) {
    /** A call admitted without a limit. */
    static final Admission UNLIMITED = new Admission(null, null, "");
  }
}
