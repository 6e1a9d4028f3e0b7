package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code declares_caller_identity}: {@code capabilities.experimental} carries a recognised
 * caller-identity key, so the server was written for a pooled backend. Recognised keys are
 * {@value CoreSettings#DEFAULT_CALLER_IDENTITY_KEY} plus any listed under
 * {@value CoreSettings#CALLER_IDENTITY_KEYS}. One finding per recognised key present; detail:
 * the key. Silent without a handshake.
 */
public final class CallerIdentityProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.DECLARES_CALLER_IDENTITY.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    Set<String> recognised = CoreSettings.callerIdentityKeys(context.config());
    return input -> {
      if (input.handshake().isEmpty()) {
        return List.of();
      }
      HandshakeFacts h = input.handshake().get();
      List<Finding> out = new ArrayList<>();
      for (String key : h.experimentalKeys()) {
        if (recognised.contains(key)) {
          out.add(Finding.of(NAME, ReasonCode.DECLARES_CALLER_IDENTITY, key));
        }
      }
      return List.copyOf(out);
    };
  }
}
