package dev.cotenant.gateway.mux;

import java.util.Objects;

/**
 * The outcome of {@link Multiplexer#attach}: the client is attached to the shared backend, or it
 * must be placed on a backend of its own.
 */
public sealed interface Attach permits Attach.Attached, Attach.NeedsDedicated {
  /**
   * The client is attached.
   *
   * @param channel what the client sends goes in here; close it when the client leaves
   */
  record Attached(ClientChannel channel) implements Attach {
    /** Requires a channel. */
    public Attached {
      Objects.requireNonNull(channel, "channel");
    }
  }

  /**
   * The client cannot share this backend. The caller places it on a dedicated backend (or, for a
   * backend that has ended, on the backend that replaces it).
   *
   * @param why what stands in the way: a protocol version the backend did not negotiate, the
   *     backend's session limit, a backend that has ended or a closed multiplexer
   */
  record NeedsDedicated(String why) implements Attach {
    /** Requires a reason. */
    public NeedsDedicated {
      Objects.requireNonNull(why, "why");
    }
  }
}
