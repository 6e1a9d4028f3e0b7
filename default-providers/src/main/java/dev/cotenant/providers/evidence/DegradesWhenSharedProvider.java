package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * {@code degrades_when_shared}: the server advertises {@code logging}, so on a shared backend
 * the last caller's level wins and a line tied to one caller's call may be dropped. Detected by
 * key PRESENCE: {@code {"logging":{}}} is the standard way to advertise a capability without
 * sub-options and counts. A note: it gates nothing. Detail: {@value #DETAIL}. Silent without a
 * handshake.
 */
public final class DegradesWhenSharedProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.DEGRADES_WHEN_SHARED.wireName();

  /** The capability whose presence is noted. */
  public static final String CAPABILITY = "logging";

  /** The finding's detail: what degrades. */
  public static final String DETAIL = "logging_level";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input ->
        input.handshake().filter(h -> h.hasCapability(CAPABILITY)).isPresent()
            ? List.of(Finding.of(NAME, ReasonCode.DEGRADES_WHEN_SHARED, DETAIL))
            : List.of();
  }
}
