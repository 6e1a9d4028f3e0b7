package dev.cotenant.gateway.seeding;

import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.GatewaySettings;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.spi.SeedingPolicy;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs a {@link SeedingPolicy} against a configuration file at start: the plan is made and
 * applied inside one lock hold over the file, the {@code applied} markers go to the pre-flight
 * cache, and the global sharing switch is never touched ({@code wantsShare} is reported).
 */
public final class Seeder {
  private final SeedingPolicy policy;
  private final PreflightCache cache;

  /** A seeder using {@code policy}, keeping markers in {@code cache}. */
  public Seeder(SeedingPolicy policy, PreflightCache cache) {
    this.policy = policy;
    this.cache = cache;
  }

  /** The plan for {@code verdicts} as things stand; writes nothing. */
  public SeedPlan plan(Map<String, Verdict> verdicts) {
    return policy.plan(verdicts, cache.load().applied());
  }

  /**
   * Plans and applies under the file's lock, then records the markers.
   *
   * @return the plan that was applied
   */
  public SeedPlan apply(LockedJsonFile config, Map<String, Verdict> verdicts) throws ConfigException, IOException {
    Set<String> appliedBefore = new LinkedHashSet<>(cache.load().applied());
    Set<String> applied = new LinkedHashSet<>(appliedBefore);
    SeedPlan plan =
        config.update(
            false,
            root -> {
              SeedPlan p = policy.plan(verdicts, applied);
              if (p.stubOverrides().isEmpty()) {
                return p;
              }
              ObjectNode overrides = GatewaySettings.stubOverrides(config.file(), root);
              Map<String, Object> section = new LinkedHashMap<>();
              overrides.properties().forEach(e -> section.put(e.getKey(), e.getValue()));
              policy.apply(p, section, applied);
              for (Map.Entry<String, Object> e : section.entrySet()) {
                if (e.getValue() instanceof Boolean) {
                  overrides.put(e.getKey(), (Boolean) e.getValue());
                }
              }
              return p;
            });
    applied.removeAll(appliedBefore);
    if (!applied.isEmpty()) {
      for (String name : applied) {
        cache.markApplied(name);
      }
      cache.flush();
    }
    return plan;
  }
}
