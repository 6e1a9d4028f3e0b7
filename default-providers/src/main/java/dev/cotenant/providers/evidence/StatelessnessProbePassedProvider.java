package dev.cotenant.providers.evidence;

import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code statelessness_probe_passed}: an interleaved statelessness probe passed under the
 * server's CURRENT launch identity, whatever the record's concurrency model (docs/architecture.md). A
 * supporting reason: it grounds nothing on its own. Detail: the tool and the rounds
 * ({@link ProbePass#detail()}). Silent without a record, without the current identity, or when
 * the pass was under another identity.
 */
public final class StatelessnessProbePassedProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.STATELESSNESS_PROBE_PASSED.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public StatelessnessProbePassedProvider() {
    super(ReasonCode.STATELESSNESS_PROBE_PASSED);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.concurrency()
        .filter(r -> input.ledgerIdentity().filter(r::probedUnder).isPresent())
        .flatMap(ConcurrencyRecord::probe)
        .map(pass -> only(pass.detail()))
        .orElse(List.of());
  }
}
