package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code not_stdio}: the server is not reached over a stdio pipe, so there is no spawned
 * backend to share. Out of scope, not unsafe. Detail: the transport's wire name. Needs no
 * handshake.
 */
public final class NotStdioProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NOT_STDIO.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public NotStdioProvider() {
    super(ReasonCode.NOT_STDIO);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> {
      Transport t = input.server().transport();
      return t == Transport.STDIO ? List.of() : only(t.wireName());
    };
  }
}
