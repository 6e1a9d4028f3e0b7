package dev.cotenant.spi;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What every provider's factory method receives: the configuration, the records directory, and
 * the services the runtime offers providers (Trino's {@code ConnectorContext}, not static helpers
 * of another module).
 *
 * <p>Immutable and thread-safe.
 */
public final class ProviderContext {
  private static final Supplier<SessionTransport> NO_SESSIONS = () -> {
    throw new IllegalStateException(
        "this provider context offers no session transport: a session transport cannot open sessions through itself");
  };

  private final ProviderConfig config;
  private final Path recordsDirectory;
  private final Supplier<SessionTransport> sessions;

  /**
   * A context whose {@link #sessions()} refuses.
   *
   * @param config the host's Cotenant configuration
   * @param recordsDirectory the per-host records directory, resolved once by the runtime (docs/records.md
   * ); providers must not resolve it themselves, so every writer and reader agree
   */
  public ProviderContext(ProviderConfig config, Path recordsDirectory) {
    this(config, recordsDirectory, NO_SESSIONS);
  }

  /**
   * A context offering a session transport.
   *
   * @param sessions the selected session transport, created on first call
   */
  public ProviderContext(ProviderConfig config, Path recordsDirectory, Supplier<SessionTransport> sessions) {
    this.config = Objects.requireNonNull(config, "config");
    this.recordsDirectory = Objects.requireNonNull(recordsDirectory, "recordsDirectory");
    this.sessions = Objects.requireNonNull(sessions, "sessions");
  }

  /** The host's Cotenant configuration. */
  public ProviderConfig config() {
    return config;
  }

  /** The per-host records directory, resolved once by the runtime. */
  public Path recordsDirectory() {
    return recordsDirectory;
  }

  /**
   * The session transport the runtime selected: how a provider that needs to start a server (the
   * pre-flight) starts it, so a host's transport applies to it too.
   *
   * @throws IllegalStateException when this context offers none (the context a session transport
   *     itself is created with), or the selected one cannot be created
   */
  public SessionTransport sessions() {
    return Objects.requireNonNull(sessions.get(), "session transport");
  }

  @Override
  public String toString() {
    return "ProviderContext[config=" + config + ", recordsDirectory=" + recordsDirectory + "]";
  }
}
