package dev.cotenant.spi;

import dev.cotenant.api.ServerDescription;
import java.util.Optional;

/**
 * Knows which of the host's own servers are session-bound by construction: they resolve their
 * caller from their own process (an env var, a pid walk), or consume the caller block yet are
 * deliberately withheld. Answers from what it was built with, never by running server code, and
 * without a handshake. Thread-safe and pure.
 */
@FunctionalInterface
public interface ManagedServerClassifier {
  /**
   * Why {@code server} is session-bound by construction, or empty when this classifier does not
   * know it or knows it is not. The returned text becomes the detail of
   * {@code session_bound_by_construction}.
   */
  Optional<String> sessionBoundReason(ServerDescription server);

  /** A classifier that knows no server. */
  static ManagedServerClassifier empty() {
    return server -> Optional.empty();
  }
}
