package dev.cotenant.providers.preflight;

import dev.cotenant.providers.session.Bounds;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Every bound of the pre-flight, read from {@link ProviderConfig} under {@code cotenant.preflight.*}.
 * Durations are configured in milliseconds. {@link StdioPreflightTransport} reads the conversation
 * bounds ({@code era}, {@code maxProcesses}, {@code timeout}, {@code maxListPages},
 * {@code maxListItems}) whatever session transport it runs over, and {@code killWait} to bound its
 * wait for a cancelled conversation's teardown. The process and protocol bounds
 * ({@code discoverTimeout}, the teardown waits, {@code maxLineBytes}, {@code maxTotalBytes},
 * {@code maxDepth}, {@code maxMessages}, {@code maxNonJsonLines}) are the tight bounds of a
 * two-process probe: {@link #sessionSettings()} hands them to the {@code stdio} session transport
 * for the pre-flight's own sessions ({@link StdioSessionTransport#openWithin}), while a long-lived
 * session reads its own, {@link SessionSettings} ({@code cotenant.session.*}).
 *
 * @param era which protocol era to speak ({@value #ERA}, default {@code auto}; parsed by
 *     {@link CoreSettings#era}, so the statelessness probe reads it the same way)
 * @param maxProcesses how many servers may run at once across every pre-flight of one transport
 *     ({@value #MAX_PROCESSES}, default {@value #DEFAULT_MAX_PROCESSES}: two pre-flights at a
 *     time, which suits a 2-core machine)
 * @param timeout one caller's conversation once its server is started: the handshake, fallback
 *     and respawn included, and every listing page ({@value #TIMEOUT_MS}, default 15 s); starting
 *     the server is bounded by it as well
 * @param discoverTimeout in {@link HandshakeEra#AUTO}, how long a session waits for a
 *     {@code server/discover} answer before falling back to {@code initialize}
 *     ({@value #DISCOVER_TIMEOUT_MS}, default 5 s)
 * @param stdinCloseWait teardown: how long to wait for an exit after closing stdin
 *     ({@value #STDIN_CLOSE_WAIT_MS}, default 1 s)
 * @param termWait teardown: how long to wait after SIGTERM (to the process, its descendants and the
 *     processes carrying its spawn cookie) before SIGKILL ({@value #TERM_WAIT_MS}, default 2 s)
 * @param killWait teardown: how long to wait for the processes to vanish after SIGKILL, the sweeps
 *     for spawn-cookie carriers included ({@value #KILL_WAIT_MS}, default 2 s)
 * @param maxLineBytes the longest stdout line accepted ({@value #MAX_LINE_BYTES}, default 8 MiB)
 * @param maxTotalBytes the most stdout bytes read from one process ({@value #MAX_TOTAL_BYTES},
 *     default 64 MiB)
 * @param maxDepth the deepest JSON nesting accepted ({@value #MAX_DEPTH}, default 64, at most
 *     {@value #MAX_DEPTH_CEILING})
 * @param maxMessages the most stdout lines (messages, notifications, garbage) read from one
 *     process ({@value #MAX_MESSAGES}, default 10,000)
 * @param maxNonJsonLines the most non-JSON stdout lines tolerated from one process
 *     ({@value #MAX_NON_JSON_LINES}, default 100)
 * @param maxListPages the most pages one listing may take ({@value #MAX_LIST_PAGES}, default 100)
 * @param maxListItems the most items one listing may hold ({@value #MAX_LIST_ITEMS}, default 10,000)
 */
public record PreflightSettings(
    HandshakeEra era,
    int maxProcesses,
    Duration timeout,
    Duration discoverTimeout,
    Duration stdinCloseWait,
    Duration termWait,
    Duration killWait,
    int maxLineBytes,
    long maxTotalBytes,
    int maxDepth,
    int maxMessages,
    int maxNonJsonLines,
    int maxListPages,
    int maxListItems) {

  /** Config key: {@code auto}, {@code initialize} or {@code discover}; the same key as {@link CoreSettings#ERA}. */
  public static final String ERA = CoreSettings.ERA;
  /** Config key: the process ceiling. */
  public static final String MAX_PROCESSES = "cotenant.preflight.max-processes";
  /** Config key: the per-caller handshake timeout in milliseconds. */
  public static final String TIMEOUT_MS = CoreSettings.TIMEOUT_MS;
  /** Config key: the {@code server/discover} wait in {@link HandshakeEra#AUTO}, in milliseconds. */
  public static final String DISCOVER_TIMEOUT_MS = "cotenant.preflight.discover-timeout-ms";
  /** Config key: teardown wait after closing stdin, in milliseconds. */
  public static final String STDIN_CLOSE_WAIT_MS = "cotenant.preflight.stdin-close-wait-ms";
  /** Config key: teardown wait after SIGTERM, in milliseconds. */
  public static final String TERM_WAIT_MS = "cotenant.preflight.term-wait-ms";
  /** Config key: teardown wait after SIGKILL, in milliseconds. */
  public static final String KILL_WAIT_MS = "cotenant.preflight.kill-wait-ms";
  /** Config key: the longest stdout line in bytes. */
  public static final String MAX_LINE_BYTES = "cotenant.preflight.max-line-bytes";
  /** Config key: the most stdout bytes per process. */
  public static final String MAX_TOTAL_BYTES = "cotenant.preflight.max-total-bytes";
  /** Config key: the deepest JSON nesting. */
  public static final String MAX_DEPTH = "cotenant.preflight.max-depth";
  /** Config key: the most stdout lines per process. */
  public static final String MAX_MESSAGES = "cotenant.preflight.max-messages";
  /** Config key: the most non-JSON stdout lines per process. */
  public static final String MAX_NON_JSON_LINES = "cotenant.preflight.max-non-json-lines";
  /** Config key: the most pages per listing. */
  public static final String MAX_LIST_PAGES = "cotenant.preflight.max-list-pages";
  /** Config key: the most items per listing. */
  public static final String MAX_LIST_ITEMS = "cotenant.preflight.max-list-items";

  /** The default process ceiling: two pre-flights (four processes) at once. */
  public static final int DEFAULT_MAX_PROCESSES = 4;
  /** The largest accepted {@code max-depth}: the JSON trees are copied recursively. */
  public static final int MAX_DEPTH_CEILING = SessionSettings.MAX_DEPTH_CEILING;

  /** Validates every bound. */
  public PreflightSettings {
    Objects.requireNonNull(era, "era");
    Bounds.positive(MAX_PROCESSES, maxProcesses);
    Bounds.positive(TIMEOUT_MS, timeout.toMillis());
    Bounds.positive(DISCOVER_TIMEOUT_MS, discoverTimeout.toMillis());
    Bounds.nonNegative(STDIN_CLOSE_WAIT_MS, stdinCloseWait.toMillis());
    Bounds.nonNegative(TERM_WAIT_MS, termWait.toMillis());
    Bounds.nonNegative(KILL_WAIT_MS, killWait.toMillis());
    Bounds.positive(MAX_LINE_BYTES, maxLineBytes);
    Bounds.positive(MAX_TOTAL_BYTES, maxTotalBytes);
    Bounds.positive(MAX_DEPTH, maxDepth);
    Bounds.atMost(MAX_DEPTH, maxDepth, MAX_DEPTH_CEILING);
    Bounds.positive(MAX_MESSAGES, maxMessages);
    Bounds.nonNegative(MAX_NON_JSON_LINES, maxNonJsonLines);
    Bounds.positive(MAX_LIST_PAGES, maxListPages);
    Bounds.positive(MAX_LIST_ITEMS, maxListItems);
  }

  /** The defaults. */
  public static PreflightSettings defaults() {
    return from(ProviderConfig.empty());
  }

  /**
   * Reads the settings, falling back to the default for every unset key.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed or out of range
   */
  public static PreflightSettings from(ProviderConfig config) {
    return new PreflightSettings(
        CoreSettings.era(config),
        Bounds.intValue(config, MAX_PROCESSES, DEFAULT_MAX_PROCESSES, 1),
        CoreSettings.timeout(config),
        config.getMillis(DISCOVER_TIMEOUT_MS, Duration.ofSeconds(5), Duration.ofMillis(1)),
        config.getMillis(STDIN_CLOSE_WAIT_MS, Duration.ofSeconds(1), Duration.ZERO),
        config.getMillis(TERM_WAIT_MS, Duration.ofSeconds(2), Duration.ZERO),
        config.getMillis(KILL_WAIT_MS, Duration.ofSeconds(2), Duration.ZERO),
        Bounds.intValue(config, MAX_LINE_BYTES, 8 * 1024 * 1024, 1),
        config.getLong(MAX_TOTAL_BYTES, 64L * 1024 * 1024, 1),
        Bounds.intValue(config, MAX_DEPTH, 64, 1),
        Bounds.intValue(config, MAX_MESSAGES, 10_000, 1),
        Bounds.intValue(config, MAX_NON_JSON_LINES, 100, 0),
        Bounds.intValue(config, MAX_LIST_PAGES, 100, 1),
        Bounds.intValue(config, MAX_LIST_ITEMS, 10_000, 1));
  }

  /**
   * The bounds of the pre-flight's own sessions: its discover timeout, teardown waits, line,
   * nesting and non-JSON bounds, and its totals ({@code maxMessages}, {@code maxTotalBytes}).
   */
  public SessionSettings sessionSettings() {
    return new SessionSettings(discoverTimeout, stdinCloseWait, termWait, killWait, maxLineBytes, maxDepth,
        maxNonJsonLines, maxMessages, maxTotalBytes);
  }
}
