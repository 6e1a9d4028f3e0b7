package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * {@code not_stdio}: the server is not reached over a stdio pipe, so there is no spawned
 * backend to share. Out of scope, not unsafe. Detail: the transport's wire name. Needs no
 * handshake.
 */
public final class NotStdioProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NOT_STDIO.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input -> {
      Transport t = input.server().transport();
      return t == Transport.STDIO ? List.of() : List.of(Finding.of(NAME, ReasonCode.NOT_STDIO, t.wireName()));
    };
  }
}
