package dev.cotenant.gateway.sharing;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * When a server's sessions share a backend, and how long a call waits for a slot.
 *
 * @param enabled the global switch ({@value #ENABLED}, default {@code false}): without it no
 *     backend is shared unless forced, whatever the verdicts say
 * @param forced servers shared whatever their verdict short of {@code refuted} ({@value #FORCED},
 *     comma-separated names): an operator's deliberate override, shown as {@code forced} wherever
 *     placement is shown; an observed hazard ends it until the operator clears the hazard
 * @param admitTimeout how long a call waits for a slot under the server's {@code maxConcurrent}
 *     ({@value #ADMIT_TIMEOUT_MS}, default 30 s) before it is answered with an error
 * @param defer whether a session whose start the records answer waits for its first other message
 *     before its backend starts ({@value #DEFER}, default {@code true}; {@link StartDecision})
 */
public record SharingSettings(boolean enabled, Set<String> forced, Duration admitTimeout, boolean defer) {
  /** The global sharing switch. */
  public static final String ENABLED = "cotenant.sharing.enabled";

  /** Servers shared whatever their verdict, short of {@code refuted}. */
  public static final String FORCED = "cotenant.sharing.forced";

  /** How long a call waits for a slot, in milliseconds. */
  public static final String ADMIT_TIMEOUT_MS = "cotenant.sharing.admit-timeout-ms";

  /** Whether a start the records answer defers the session's backend to its first other message. */
  public static final String DEFER = "cotenant.sharing.defer";

  public SharingSettings {
    forced = Set.copyOf(forced);
    Objects.requireNonNull(admitTimeout, "admitTimeout");
  }

  /** The settings with deferring on. */
  public SharingSettings(boolean enabled, Set<String> forced, Duration admitTimeout) {
    this(enabled, forced, admitTimeout, true);
  }

  /** Sharing off, nothing forced, 30 s to admit, deferring on. */
  public static SharingSettings defaults() {
    return new SharingSettings(false, Set.of(), Duration.ofSeconds(30), true);
  }

  /**
   * Reads the four keys.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed
   */
  public static SharingSettings fromConfig(ProviderConfig config) {
    boolean enabled = config.get(ENABLED).map(v -> bool(ENABLED, v)).orElse(false);
    List<String> forced = config.getList(FORCED, List.of());
    Duration admit = Duration.ofMillis(config.get(ADMIT_TIMEOUT_MS).map(v -> millis(ADMIT_TIMEOUT_MS, v)).orElse(30_000L));
    boolean defer = config.get(DEFER).map(v -> bool(DEFER, v)).orElse(true);
    return new SharingSettings(enabled, Set.copyOf(forced), admit, defer);
  }

  private static boolean bool(String key, String v) {
    String t = v.trim();
    if (t.equals("true") || t.equals("false")) {
      return Boolean.parseBoolean(t);
    }
    throw new IllegalArgumentException(key + " must be true or false, got '" + LogSafe.escape(v, 40) + "'");
  }

  private static long millis(String key, String v) {
    Optional<Long> ms;
    try {
      ms = Optional.of(Long.parseLong(v.trim())).filter(n -> n >= 1);
    } catch (NumberFormatException e) {
      ms = Optional.empty();
    }
    return ms.orElseThrow(() -> new IllegalArgumentException(
        key + " must be a positive number of milliseconds, got '" + LogSafe.escape(v, 40) + "'"));
  }
}
