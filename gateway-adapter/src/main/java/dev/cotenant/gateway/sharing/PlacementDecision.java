package dev.cotenant.gateway.sharing;

import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.pool.Placement;
import java.util.Objects;

/**
 * Where one session of a server goes, and why (see {@code docs/daemon.md}, "What is shared, and
 * why"): a SHARED backend only when the operator forced the server ({@link
 * SharingSettings#forced()}) and nothing refutes it, or when sharing is enabled ({@link
 * SharingSettings#enabled()}) and the server's verdict recommends sharing; otherwise a DEDICATED
 * backend of its own (the topology of no gateway, still pooled for lifecycle, teardown and
 * accounting). Forcing overrides every verdict but {@code refuted}: an observed hazard outranks
 * the operator's word too, until the operator clears it ({@code cotenant hazards clear NAME}).
 *
 * @param placement shared or dedicated
 * @param forced true when an operator's override, not the verdict, shares it
 * @param why the reason, for rows, logs and the accounting
 */
public record PlacementDecision(Placement placement, boolean forced, String why) {
  public PlacementDecision {
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(why, "why");
  }

  /** The decision for {@code server} with {@code verdict} under {@code settings}. */
  public static PlacementDecision decide(String server, Verdict verdict, SharingSettings settings) {
    if (settings.forced().contains(server)) {
      if (verdict.strength() == Strength.REFUTED) {
        return new PlacementDecision(Placement.DEDICATED, false, "forced by " + SharingSettings.FORCED
            + ", but refuted: a hazard was observed (clear it with `cotenant hazards clear " + server
            + "` to force it again)");
      }
      return new PlacementDecision(Placement.SHARED, true,
          "forced by " + SharingSettings.FORCED + " (verdict " + verdict.strength().wireName() + ")");
    }
    if (!verdict.recommendShare()) {
      return new PlacementDecision(Placement.DEDICATED, false,
          "its verdict (" + verdict.strength().wireName() + ") does not recommend sharing");
    }
    if (!settings.enabled()) {
      return new PlacementDecision(Placement.DEDICATED, false,
          "sharing is off (" + SharingSettings.ENABLED + "=false)");
    }
    return new PlacementDecision(Placement.SHARED, false,
        "its verdict (" + verdict.strength().wireName() + ") recommends sharing");
  }
}
