package dev.cotenant.gateway.sharing;

import dev.cotenant.api.ProbePass;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.pool.Placement;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one session of a server goes, and why (see {@code docs/daemon.md}, "What is shared, and
 * why"): a SHARED backend only when the operator forced the server ({@link
 * SharingSettings#forced()}) and nothing refutes it, or when sharing is enabled ({@link
 * SharingSettings#enabled()}) and the server's verdict recommends sharing; otherwise a DEDICATED
 * backend of its own (the topology of no gateway, still pooled for lifecycle, teardown and
 * accounting). Forcing overrides every verdict but {@code refuted}: an observed hazard outranks
 * the operator's word too, until the operator clears it ({@code cotenant hazards clear NAME}).
 *
 * <p>A client that declares a capability a server asks its client about ({@code roots},
 * {@code sampling}, {@code elicitation}) is shared on a verdict only when the whole-surface probe
 * on record also passed as clients declaring it ({@link #forClient}); otherwise it gets a backend
 * of its own, and the reason says so.
 *
 * <p>A shared decision also says which clients its backend serves ({@link ShapeGroup}): every
 * client the evidence covers, or only clients of the client's own shape.
 *
 * @param placement shared or dedicated
 * @param forced true when an operator's override, not the verdict, shares it
 * @param why the reason, for rows, logs and the accounting
 * @param group for a shared decision, the clients its backend serves; empty for a dedicated one
 *     (and for a shared one whose group was not decided: clients of the client's own shape)
 */
public record PlacementDecision(Placement placement, boolean forced, String why, Optional<ShapeGroup> group) {
  public PlacementDecision {
    Objects.requireNonNull(placement, "placement");
    Objects.requireNonNull(why, "why");
    Objects.requireNonNull(group, "group");
  }

  /** A decision whose backend serves clients of the client's own shape. */
  public PlacementDecision(Placement placement, boolean forced, String why) {
    this(placement, forced, why, Optional.empty());
  }

  /** This shared decision, serving the clients of {@code g}, with why in its reason; a dedicated one as it is. */
  public PlacementDecision in(ShapeGroup g) {
    return placement != Placement.SHARED ? this : new PlacementDecision(placement, forced, why + "; " + g.why(),
        Optional.of(g));
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

  /**
   * The decision {@code base} for {@code server} made for one client of {@code shape}. A client
   * declaring none of the capabilities a server asks its client about, a dedicated decision and a
   * forced one stay as they are (a forced server still takes no second session on a backend that
   * asked its first one something). Otherwise the client is shared only when {@code pass}, the
   * whole-surface probe on record under the server's current identity, covered clients declaring
   * every such capability it declares ({@link ProbePass#coversClients}); else it is dedicated.
   *
   * @param pass the probe on record under the server's current launch identity, if any
   */
  public static PlacementDecision forClient(PlacementDecision base, String server, ClientShape shape,
      Optional<ProbePass> pass) {
    List<String> asked = shape.askedOfClients();
    if (base.placement() != Placement.SHARED || base.forced() || asked.isEmpty()) {
      return base;
    }
    String declares = String.join(", ", asked);
    if (pass.filter(p -> p.coversClients(asked)).isPresent()) {
      return new PlacementDecision(Placement.SHARED, false,
          base.why() + ", and its whole-surface probe also passed as clients declaring " + declares);
    }
    Optional<List<String>> covered = pass.flatMap(ProbePass::surface).map(ProbePass.Surface::clientCapabilities);
    String evidence = covered.isEmpty()
        ? "no whole-surface probe on record covers clients declaring it"
        : "its whole-surface probe covers clients declaring "
            + (covered.get().isEmpty() ? "none of roots, sampling, elicitation" : "only " + String.join(", ", covered.get()));
    return new PlacementDecision(Placement.DEDICATED, false, "the client declares " + declares + ", and " + evidence
        + " (`cotenant probe-stateless " + server + "` runs a pass as such clients)");
  }
}
