package dev.cotenant.providers.session;

import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * The bounds of one {@code stdio} session (one server process spoken to over its pipes), read
 * from {@link ProviderConfig} under {@code cotenant.session.*}. Durations are configured in
 * milliseconds.
 *
 * <p>The settings {@link #from} reads suit a long-lived backend: one message, its nesting and the
 * lines that are not JSON are bounded, but neither how many messages nor how many bytes a
 * process writes over its life ({@link #maxMessages()} and {@link #maxTotalBytes()} are
 * {@link #UNBOUNDED}), so a healthy backend is never ended for having lived long. A short,
 * hostile-proof conversation such as the pre-flight's sets both totals through the constructor
 * (see {@code PreflightSettings#sessionSettings()}) and opens its sessions under them with
 * {@link StdioSessionTransport#openWithin}.
 *
 * @param discoverTimeout in {@link HandshakeEra#AUTO}, how long a session waits for a
 *     {@code server/discover} answer before falling back to {@code initialize}
 *     ({@value #DISCOVER_TIMEOUT_MS}, default 5 s)
 * @param stdinCloseWait teardown: how long to wait for an exit after closing stdin
 *     ({@value #STDIN_CLOSE_WAIT_MS}, default 1 s)
 * @param termWait teardown: how long to wait after SIGTERM (to the process, its descendants and
 *     the processes carrying its spawn cookie) before SIGKILL ({@value #TERM_WAIT_MS}, default 2 s)
 * @param killWait teardown: how long to wait for the processes to vanish after SIGKILL, the sweeps
 *     for spawn-cookie carriers included ({@value #KILL_WAIT_MS}, default 2 s)
 * @param maxMessageBytes the longest message (stdout line) accepted ({@value #MAX_MESSAGE_BYTES},
 *     default 32 MiB, the largest message the daemon's shims carry); a longer one ends the session
 * @param maxDepth the deepest JSON nesting accepted ({@value #MAX_DEPTH}, default 64, at most
 *     {@value #MAX_DEPTH_CEILING})
 * @param maxNonJsonLines the most stdout lines that are not a JSON object tolerated from one
 *     process over its life ({@value #MAX_NON_JSON_LINES}, default 100)
 * @param maxMessages the most stdout lines (messages, notifications, garbage) read from one
 *     process; {@link #UNBOUNDED} unless a caller sets it (no configuration key)
 * @param maxTotalBytes the most stdout bytes read from one process; {@link #UNBOUNDED} unless a
 *     caller sets it (no configuration key)
 */
public record SessionSettings(
    Duration discoverTimeout,
    Duration stdinCloseWait,
    Duration termWait,
    Duration killWait,
    int maxMessageBytes,
    int maxDepth,
    int maxNonJsonLines,
    long maxMessages,
    long maxTotalBytes) {

  /** Config key: the {@code server/discover} wait in {@link HandshakeEra#AUTO}, in milliseconds. */
  public static final String DISCOVER_TIMEOUT_MS = "cotenant.session.discover-timeout-ms";
  /** Config key: teardown wait after closing stdin, in milliseconds. */
  public static final String STDIN_CLOSE_WAIT_MS = "cotenant.session.stdin-close-wait-ms";
  /** Config key: teardown wait after SIGTERM, in milliseconds. */
  public static final String TERM_WAIT_MS = "cotenant.session.term-wait-ms";
  /** Config key: teardown wait after SIGKILL, in milliseconds. */
  public static final String KILL_WAIT_MS = "cotenant.session.kill-wait-ms";
  /** Config key: the longest message (stdout line) in bytes. */
  public static final String MAX_MESSAGE_BYTES = "cotenant.session.max-message-bytes";
  /** Config key: the deepest JSON nesting. */
  public static final String MAX_DEPTH = "cotenant.session.max-depth";
  /** Config key: the most non-JSON stdout lines per process. */
  public static final String MAX_NON_JSON_LINES = "cotenant.session.max-non-json-lines";

  /** A total that is not bounded: {@link #maxMessages()} and {@link #maxTotalBytes()} of a long-lived session. */
  public static final long UNBOUNDED = Long.MAX_VALUE;
  /** The default {@link #maxMessageBytes()}: 32 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 32 << 20;
  /** The largest accepted {@code max-depth}: the JSON trees are copied recursively. */
  public static final int MAX_DEPTH_CEILING = 1000;

  /**
   * Validates every bound.
   *
   * @throws IllegalArgumentException naming the configuration key of the bound out of range, or
   *     saying which total is not positive
   */
  public SessionSettings {
    Bounds.positive(DISCOVER_TIMEOUT_MS, Objects.requireNonNull(discoverTimeout, "discoverTimeout").toMillis());
    Bounds.nonNegative(STDIN_CLOSE_WAIT_MS, Objects.requireNonNull(stdinCloseWait, "stdinCloseWait").toMillis());
    Bounds.nonNegative(TERM_WAIT_MS, Objects.requireNonNull(termWait, "termWait").toMillis());
    Bounds.nonNegative(KILL_WAIT_MS, Objects.requireNonNull(killWait, "killWait").toMillis());
    Bounds.positive(MAX_MESSAGE_BYTES, maxMessageBytes);
    Bounds.positive(MAX_DEPTH, maxDepth);
    Bounds.atMost(MAX_DEPTH, maxDepth, MAX_DEPTH_CEILING);
    Bounds.nonNegative(MAX_NON_JSON_LINES, maxNonJsonLines);
    if (maxMessages <= 0 || maxTotalBytes <= 0) {
      throw new IllegalArgumentException("the totals must be positive, got maxMessages " + maxMessages
          + " and maxTotalBytes " + maxTotalBytes);
    }
  }

  /** The defaults of a long-lived session. */
  public static SessionSettings defaults() {
    return from(ProviderConfig.empty());
  }

  /**
   * Reads the settings of a long-lived session, falling back to the default for every unset key;
   * the totals are {@link #UNBOUNDED}.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed or out of range
   */
  public static SessionSettings from(ProviderConfig config) {
    return new SessionSettings(
        config.getMillis(DISCOVER_TIMEOUT_MS, Duration.ofSeconds(5), Duration.ofMillis(1)),
        config.getMillis(STDIN_CLOSE_WAIT_MS, Duration.ofSeconds(1), Duration.ZERO),
        config.getMillis(TERM_WAIT_MS, Duration.ofSeconds(2), Duration.ZERO),
        config.getMillis(KILL_WAIT_MS, Duration.ofSeconds(2), Duration.ZERO),
        Bounds.intValue(config, MAX_MESSAGE_BYTES, DEFAULT_MAX_MESSAGE_BYTES, 1),
        Bounds.intValue(config, MAX_DEPTH, 64, 1),
        Bounds.intValue(config, MAX_NON_JSON_LINES, 100, 0),
        UNBOUNDED,
        UNBOUNDED);
  }

  /** Whether neither total is bounded: the session may live as long as its server does. */
  public boolean longLived() {
    return maxMessages == UNBOUNDED && maxTotalBytes == UNBOUNDED;
  }
}
