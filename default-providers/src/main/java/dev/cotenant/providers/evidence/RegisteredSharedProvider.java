package dev.cotenant.providers.evidence;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code registered_shared}: the server's concurrency record says {@code shared} and the
 * statelessness probe behind it passed under the server's CURRENT launch identity (DESIGN §2,
 * §7). Detail: the share scope's wire name. Silent without a record, without the current
 * identity, or when the probe passed under another identity (a rebuilt or reconfigured server
 * has not earned the registration again).
 */
public final class RegisteredSharedProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.REGISTERED_SHARED.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public RegisteredSharedProvider() {
    super(ReasonCode.REGISTERED_SHARED);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.concurrency()
        .filter(r -> r.model() == ConcurrencyModel.SHARED && input.ledgerIdentity().filter(r::probedUnder).isPresent())
        .map(r -> only(r.scope().wireName()))
        .orElse(List.of());
  }
}
