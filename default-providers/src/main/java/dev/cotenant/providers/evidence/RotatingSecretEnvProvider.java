package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.Set;

/**
 * {@code rotating_secret_env}: the server declares an env name that matches a secret pattern
 * and is therefore left out of the pool key and never forwarded into a shared backend. One
 * finding per such name, in name order; detail: the name. Silent for a name listed under
 * {@value CoreSettings#POOL_IDENTITY_ENV}: that name IS in the pool key and is forwarded, so
 * there is nothing to note. Patterns come from {@value CoreSettings#SECRET_PATTERNS}
 * (defaults: {@link SecretPatterns#DEFAULT_GLOBS}). A note: it gates nothing. Needs no
 * handshake.
 */
public final class RotatingSecretEnvProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.ROTATING_SECRET_ENV.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public RotatingSecretEnvProvider() {
    super(ReasonCode.ROTATING_SECRET_ENV);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    SecretPatterns secrets = CoreSettings.secretPatterns(config);
    Set<String> poolIdentity = Set.copyOf(CoreSettings.poolIdentityEnv(config));
    // ServerDescription keeps env sorted by key, so findings come out in name order.
    return input -> input.server().env().keySet().stream()
        .filter(envName -> secrets.isSecret(envName) && !poolIdentity.contains(envName))
        .map(this::finding)
        .toList();
  }
}
