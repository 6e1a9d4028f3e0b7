package dev.cotenant.providers.seeding;

import dev.cotenant.api.Verdict;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.spi.SeedingPolicy;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The default seeding policy (docs/integration.md): once per server, a server whose verdict recommends a
 * stub is written into {@code stubOverrides} as {@code true}; a server whose verdict recommends
 * sharing is reported in {@code wantsShare} and never acted on (seeding never turns the global
 * sharing switch on). A server without a recommendation is left for a later start, when more is
 * known, and gets no {@code applied} marker. Stateless and thread-safe; {@link #plan} is pure.
 */
public final class DefaultSeedingPolicy implements SeedingPolicy {
  @Override
  public SeedPlan plan(Map<String, Verdict> verdicts, Set<String> applied) {
    Map<String, Boolean> overrides = new TreeMap<>();
    Set<String> wantsShare = new TreeSet<>();
    Set<String> already = new TreeSet<>();
    for (Map.Entry<String, Verdict> e : verdicts.entrySet()) {
      String name = e.getKey();
      Verdict v = e.getValue();
      if (applied.contains(name)) {
        already.add(name);
        continue;
      }
      if (v.recommendStub()) {
        overrides.put(name, true);
      }
      if (v.recommendShare()) {
        wantsShare.add(name);
      }
    }
    return new SeedPlan(overrides, wantsShare, already);
  }

  @Override
  public void apply(SeedPlan plan, Map<String, Object> stubOverrides, Set<String> applied) {
    for (Map.Entry<String, Boolean> e : new TreeMap<>(plan.stubOverrides()).entrySet()) {
      if (applied.contains(e.getKey())) {
        continue; // seeded by someone else since the plan was made: the config is the operator's now
      }
      stubOverrides.put(e.getKey(), e.getValue());
      applied.add(e.getKey());
    }
  }
}
