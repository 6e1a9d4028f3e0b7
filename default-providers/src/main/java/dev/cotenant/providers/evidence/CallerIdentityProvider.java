package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;
import java.util.Set;

/**
 * {@code declares_caller_identity}: {@code capabilities.experimental} carries a recognised
 * caller-identity key, so the server was written for a pooled backend. Recognised keys are
 * {@value CoreSettings#DEFAULT_CALLER_IDENTITY_KEY} plus any listed under
 * {@value CoreSettings#CALLER_IDENTITY_KEYS}. One finding per recognised key present; detail:
 * the key. Silent without a handshake.
 */
public final class CallerIdentityProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.DECLARES_CALLER_IDENTITY.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public CallerIdentityProvider() {
    super(ReasonCode.DECLARES_CALLER_IDENTITY);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    Set<String> recognised = CoreSettings.callerIdentityKeys(config);
    return input -> input.handshake()
        .map(h -> h.experimentalKeys().stream().filter(recognised::contains).map(this::finding).toList())
        .orElse(List.of());
  }
}
