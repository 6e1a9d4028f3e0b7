package dev.cotenant.gateway.pool;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Why the pool cannot give a caller a backend. The message says what happened, and to which entry. */
public final class PoolException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What kind of refusal. */
  public enum Kind {
    /**
     * The pool already holds {@link PoolSettings#spawnBudget()} live entries and the acquire
     * needed a new one; the message names the budget and its key
     * {@value PoolSettings#SPAWN_BUDGET}.
     */
    BUDGET_EXHAUSTED,
    /** The entry's first start failed; the message carries the cause's message. */
    SPAWN_FAILED,
    /** The entry's backend died and could not be restarted within the attempts allowed. */
    FAILED,
    /**
     * The pool is draining or closed, the entry closed, or the lease (or its session) was
     * released.
     */
    CLOSED,
    /** A restart is in flight: the lease has no backend right now ({@link Lease#awaitBackend}). */
    RESTARTING
  }

  private final Kind kind;

  /**
   * @param kind what kind of refusal
   * @param message what happened, naming the entry
   * @param cause the underlying failure, if any
   */
  public PoolException(Kind kind, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** What kind of refusal. */
  public Kind kind() {
    return kind;
  }
}
