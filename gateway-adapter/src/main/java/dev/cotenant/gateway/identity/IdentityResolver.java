package dev.cotenant.gateway.identity;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.ServerDescription;

/**
 * Computes a server's current launch identity. Resolving the executable's fingerprint reads the
 * file system, so this is called while loading state, never while building a row.
 */
@FunctionalInterface
public interface IdentityResolver {
  /** The current identity of {@code server}. */
  ExecutionIdentity identify(ServerDescription server);
}
