package dev.cotenant.examples.servers;

import java.util.Set;

/**
 * What the connected client said about itself in its {@code initialize} request: its
 * {@code clientInfo} and the top-level keys of its declared {@code capabilities}.
 *
 * <p>A stdio server process serves exactly one client, so a sample server may read this as
 * "the caller". That is precisely the assumption a pooled backend breaks: the second session
 * attached to a shared process is answered as if it were the first.
 *
 * @param clientName {@code clientInfo.name}, or the empty string when absent
 * @param clientVersion {@code clientInfo.version}, or the empty string when absent
 * @param capabilityKeys the keys present in the client's {@code capabilities} object
 */
public record ClientHandshake(String clientName, String clientVersion, Set<String> capabilityKeys) {

  /** A client that has not initialized yet: no name, no capabilities. */
  public static final ClientHandshake NONE = new ClientHandshake("", "", Set.of());

  /** Copies the capability keys into an immutable set. */
  public ClientHandshake {
    capabilityKeys = Set.copyOf(capabilityKeys);
  }

  /**
   * Whether the client declared the given capability (by key presence: {@code "roots": {}}
   * counts).
   *
   * @param key a top-level client capability key such as {@code roots} or {@code sampling}
   * @return true when the key was present in the client's {@code capabilities}
   */
  public boolean declares(String key) {
    return capabilityKeys.contains(key);
  }
}
