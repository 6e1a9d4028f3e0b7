package dev.cotenant.providers.evidence;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;
import java.util.Optional;

/**
 * {@code registered_shared}: the server's concurrency record says {@code shared} and the
 * statelessness probe behind it passed under the server's CURRENT launch identity (DESIGN §2,
 * §7). Detail: the share scope's wire name. Silent without a record, without the current
 * identity, or when the probe passed under another identity (a rebuilt or reconfigured server
 * has not earned the registration again).
 */
public final class RegisteredSharedProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.REGISTERED_SHARED.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input -> {
      Optional<ConcurrencyRecord> record = input.concurrency();
      Optional<String> identity = input.ledgerIdentity();
      if (record.isEmpty() || identity.isEmpty()) {
        return List.of();
      }
      ConcurrencyRecord r = record.get();
      if (r.model() != ConcurrencyModel.SHARED || !r.probedUnder(identity.get())) {
        return List.of();
      }
      return List.of(Finding.of(NAME, ReasonCode.REGISTERED_SHARED, r.scope().wireName()));
    };
  }
}
