package dev.cotenant.gateway.pool;

import java.util.List;

/**
 * What {@link TransportPool#drainAll} did. Every entry the pool held when the drain began is
 * counted once, in {@code drained} or in {@code forced}.
 *
 * @param drained entries whose backend was closed (its {@link PooledBackend#close()} returned)
 *     within the timeout
 * @param forced entries still open when the timeout ended: closed then, or whose close was still
 *     running (it goes on in the background; the pool stops waiting for it)
 * @param errors one line per backend whose close threw, {@code "connectionId: message"}
 */
public record DrainResult(int drained, int forced, List<String> errors) {
  /** Copies the errors. */
  public DrainResult {
    errors = List.copyOf(errors);
  }
}
