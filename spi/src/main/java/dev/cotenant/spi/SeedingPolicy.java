package dev.cotenant.spi;

import dev.cotenant.api.Verdict;
import java.util.Map;
import java.util.Set;

/**
 * Turns verdicts into configuration. {@link #plan} is pure; {@link #apply} mutates a loaded
 * config section and the applied markers; the caller owns reading, locking and writing the
 * file. Thread-safe.
 */
public interface SeedingPolicy {
  /**
   * Plans seeding.
   *
   * @param verdicts the current verdict of each configured server
   * @param applied servers already seeded once (never seeded again)
   */
  SeedPlan plan(Map<String, Verdict> verdicts, Set<String> applied);

  /**
   * Writes {@code plan} into {@code stubOverrides} (a loaded config section, mutated) and adds
   * the seeded names to {@code applied} (mutated).
   */
  void apply(SeedPlan plan, Map<String, Object> stubOverrides, Set<String> applied);
}
