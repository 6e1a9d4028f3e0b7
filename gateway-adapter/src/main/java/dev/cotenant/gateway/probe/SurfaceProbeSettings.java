package dev.cotenant.gateway.probe;

import dev.cotenant.api.SecretPatterns;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ProviderConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link SurfaceProbe} is configured with: the era, handshake time limit, caller-identity
 * keys and secret patterns it shares with the pre-flight ({@link CoreSettings}), and its own
 * {@value SurfaceProbe#CALL_TIMEOUT_MS} and {@value SurfaceProbe#BUDGET_MS}. Immutable.
 *
 * @param era the protocol era to speak
 * @param handshakeTimeout each handshake's time limit
 * @param callTimeout each call's time limit
 * @param budget the whole probe's time limit
 * @param callerIdentityKeys the {@code capabilities.experimental} keys that declare the
 *     caller-identity extension
 * @param secrets the env names whose values never appear in a report
 */
record SurfaceProbeSettings(
    HandshakeEra era, Duration handshakeTimeout, Duration callTimeout, Duration budget, Set<String> callerIdentityKeys,
    SecretPatterns secrets) {
  SurfaceProbeSettings {
    Objects.requireNonNull(era, "era");
    Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    Objects.requireNonNull(callTimeout, "callTimeout");
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(callerIdentityKeys, "callerIdentityKeys");
    Objects.requireNonNull(secrets, "secrets");
  }

  /**
   * The settings {@code config} names; each time limit a positive whole number of milliseconds.
   *
   * @throws IllegalArgumentException naming the key whose value is malformed
   */
  static SurfaceProbeSettings of(ProviderConfig config) {
    return new SurfaceProbeSettings(CoreSettings.era(config), CoreSettings.timeout(config),
        config.getMillis(SurfaceProbe.CALL_TIMEOUT_MS, Duration.ofMillis(SurfaceProbe.DEFAULT_CALL_TIMEOUT_MS),
            Duration.ofMillis(1)),
        config.getMillis(SurfaceProbe.BUDGET_MS, Duration.ofMillis(SurfaceProbe.DEFAULT_BUDGET_MS), Duration.ofMillis(1)),
        CoreSettings.callerIdentityKeys(config), CoreSettings.secretPatterns(config));
  }
}
