package dev.cotenant.spi;

import java.util.Map;
import java.util.Set;

/**
 * What seeding would write: per-server stub overrides for servers not yet seeded, and the
 * servers whose verdict recommends sharing (reported, never acted on: seeding never turns the
 * global sharing switch on).
 *
 * @param stubOverrides server name to stub on/off, only for servers without an {@code applied} marker
 * @param wantsShare servers whose verdict recommends sharing
 * @param alreadySeeded servers skipped because an {@code applied} marker exists
 */
public record SeedPlan(Map<String, Boolean> stubOverrides, Set<String> wantsShare, Set<String> alreadySeeded) {
  public SeedPlan {
    stubOverrides = Map.copyOf(stubOverrides);
    wantsShare = Set.copyOf(wantsShare);
    alreadySeeded = Set.copyOf(alreadySeeded);
  }
}
