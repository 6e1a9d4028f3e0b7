package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * {@code no_tools_listed}: a handshake was observed and {@code tools/list} produced nothing.
 * Supporting only. Silent without a handshake: no handshake is not "no tools".
 */
public final class NoToolsListedProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NO_TOOLS_LISTED.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input ->
        input.handshake().filter(h -> h.tools().isEmpty()).isPresent()
            ? List.of(Finding.of(NAME, ReasonCode.NO_TOOLS_LISTED))
            : List.of();
  }
}
