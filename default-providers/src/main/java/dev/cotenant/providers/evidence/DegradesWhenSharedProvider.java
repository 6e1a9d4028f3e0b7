package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code degrades_when_shared}: the server advertises {@code logging}, so on a shared backend
 * the last caller's level wins and a line tied to one caller's call may be dropped. Detected by
 * key PRESENCE: {@code {"logging":{}}} is the standard way to advertise a capability without
 * sub-options and counts. A note: it gates nothing. Detail: {@value #DETAIL}. Silent without a
 * handshake.
 */
public final class DegradesWhenSharedProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.DEGRADES_WHEN_SHARED.wireName();

  /** The capability whose presence is noted. */
  public static final String CAPABILITY = "logging";

  /** The finding's detail: what degrades. */
  public static final String DETAIL = "logging_level";

  /** Does nothing; the source is built in {@link #create}. */
  public DegradesWhenSharedProvider() {
    super(ReasonCode.DEGRADES_WHEN_SHARED);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.handshake().filter(h -> h.hasCapability(CAPABILITY)).isPresent() ? only(DETAIL) : List.of();
  }
}
