package dev.cotenant.providers.evidence;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.Finding;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;
import java.util.Optional;

/**
 * {@code statelessness_probe_passed}: an interleaved statelessness probe passed under the
 * server's CURRENT launch identity, whatever the record's concurrency model (DESIGN §2). A
 * supporting reason: it grounds nothing on its own. Detail: the tool and the rounds
 * ({@link ProbePass#detail()}). Silent without a record, without the current identity, or when
 * the pass was under another identity.
 */
public final class StatelessnessProbePassedProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.STATELESSNESS_PROBE_PASSED.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input -> {
      Optional<ConcurrencyRecord> record = input.concurrency();
      Optional<String> identity = input.ledgerIdentity();
      if (record.isEmpty() || identity.isEmpty() || !record.get().probedUnder(identity.get())) {
        return List.of();
      }
      ProbePass pass = record.get().probe().orElseThrow();
      return List.of(Finding.of(NAME, ReasonCode.STATELESSNESS_PROBE_PASSED, pass.detail()));
    };
  }
}
