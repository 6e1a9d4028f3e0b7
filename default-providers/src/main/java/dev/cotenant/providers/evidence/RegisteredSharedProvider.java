package dev.cotenant.providers.evidence;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;
import java.util.SortedMap;

/**
 * {@code registered_shared}: the server's concurrency record says {@code shared} and the
 * whole-surface statelessness probe behind it passed under the server's CURRENT launch identity
 * (docs/architecture.md, docs/statelessness.md). Detail: the share scope's wire name, followed by the tools the operator's
 * plan skipped ({@code tenant; skipped by plan: wipe}). Silent without a record, without the
 * current identity, when the probe passed under another identity (a rebuilt or reconfigured
 * server has not earned the registration again), when the probe covered one tool only, and
 * when the observed handshake lists a tool the probe neither exercised nor skipped by plan (a
 * new {@code tools/list} is a surface the probe never saw).
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
        .filter(r -> r.probe().filter(ProbePass::wholeSurface).isPresent())
        .filter(r -> input.handshake().map(h -> r.probe().orElseThrow().covers(
            h.tools().stream().map(ToolFacts::name).toList())).orElse(true))
        .map(r -> only(detail(r)))
        .orElse(List.of());
  }

  private static String detail(ConcurrencyRecord r) {
    SortedMap<String, String> skipped = r.probe().orElseThrow().surface().orElseThrow().skipped();
    return skipped.isEmpty()
        ? r.scope().wireName()
        : r.scope().wireName() + "; skipped by plan: " + String.join(", ", skipped.keySet());
  }
}
