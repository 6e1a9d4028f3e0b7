package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code no_tools_listed}: a handshake was observed and {@code tools/list} produced nothing.
 * Supporting only. Silent without a handshake: no handshake is not "no tools".
 */
public final class NoToolsListedProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NO_TOOLS_LISTED.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public NoToolsListedProvider() {
    super(ReasonCode.NO_TOOLS_LISTED);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.handshake().filter(h -> h.tools().isEmpty()).isPresent() ? only("") : List.of();
  }
}
