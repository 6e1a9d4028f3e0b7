package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Verdict;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link SeedingPolicyProvider} and its {@link SeedingPolicy} (docs/integration.md):
 * {@code plan} is pure and returns a plan, {@code apply} mutates a loaded config section and the
 * {@code applied} markers; once per server; seeding never turns sharing on ({@code wantsShare} is
 * only reported).
 *
 * <p><b>Checks</b> (beside {@link NamedProviderContract}'s): the provider creates a policy from a
 * context with empty configuration; {@code plan} is pure (equal plans for equal inputs, inputs
 * left as they were, the same plan from several threads); it never plans a server that already
 * has an {@code applied} marker (the server is reported in {@code alreadySeeded} instead); it only
 * names servers it was given; it reports in {@code wantsShare} every unseeded server whose verdict
 * recommends sharing and no server whose verdict does not; {@code apply} writes exactly the
 * planned overrides into an empty section and adds exactly the planned names to {@code applied};
 * it leaves every other entry of the section as it was and adds no key outside the plan (the
 * global sharing switch and the {@code wantsShare} servers are never written for sharing's sake);
 * it does not write a server that was marked applied after the plan was made.
 *
 * <p><b>Extending:</b> implement {@link #constructor()}; override {@link #verdicts()} and
 * {@link #applied()} to add cases, {@link #context()} for configuration. Test methods are
 * package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class SeedingPolicyContract
    extends NamedProviderContract<SeedingPolicyProvider, SeedingPolicy> {
  /** For subclasses. */
  protected SeedingPolicyContract() {
    super(SeedingPolicyProvider::create);
  }

  /** The verdicts planned; {@link Samples#verdicts()} by default (one of each strength). */
  protected Map<String, Verdict> verdicts() {
    return Samples.verdicts();
  }

  /** The applied markers planned against; {@link Samples#applied()} by default. */
  protected Set<String> applied() {
    return Samples.applied();
  }

  /** A policy created by a new provider from {@link #context()}. */
  protected final SeedingPolicy policy() {
    return created();
  }

  @Test
  void planIsPureAndLeavesItsInputsAlone() throws Exception {
    SeedingPolicy p = policy();
    Map<String, Verdict> verdicts = new HashMap<>(verdicts());
    Set<String> applied = new HashSet<>(applied());
    SeedPlan first = planOf(p, verdicts, applied);
    assertEquals(verdicts(), verdicts, "plan changed the verdicts it was given");
    assertEquals(applied(), applied, "plan changed the applied markers it was given");
    assertEquals(first, planOf(p, verdicts, applied), "a second plan of the same inputs differs");
    assertEquals(first, planOf(policy(), verdicts, applied), "two policies created alike plan differently");
    List<SeedPlan> concurrent = Concurrently.run(8, 60, i -> p.plan(Map.copyOf(verdicts()), Set.copyOf(applied())));
    for (SeedPlan plan : concurrent) {
      assertEquals(first, plan, "a plan made on several threads at once differs");
    }
  }

  @Test
  void planNeverSeedsAServerAlreadyApplied() {
    SeedingPolicy p = policy();
    SeedPlan plan = planOf(p, verdicts(), applied());
    for (String name : applied()) {
      assertFalse(plan.stubOverrides().containsKey(name), "plan seeds " + name + ", which already has an applied marker");
      if (verdicts().containsKey(name)) {
        assertTrue(plan.alreadySeeded().contains(name), "plan does not report " + name + " as already seeded");
      }
    }
    SeedPlan none = planOf(p, verdicts(), verdicts().keySet());
    assertEquals(Map.of(), none.stubOverrides(), "with every server marked applied, plan still seeds some");
    assertEquals(verdicts().keySet(), none.alreadySeeded(), "with every server marked applied, alreadySeeded misses some");
  }

  @Test
  void planOnlyNamesServersItWasGiven() {
    SeedPlan plan = planOf(policy(), verdicts(), applied());
    Set<String> unknown = new TreeSet<>(plan.stubOverrides().keySet());
    unknown.addAll(plan.wantsShare());
    unknown.addAll(plan.alreadySeeded());
    unknown.removeAll(verdicts().keySet());
    assertEquals(Set.of(), unknown, "plan names servers that have no verdict");
  }

  @Test
  void planReportsTheServersThatWantSharing() {
    SeedPlan plan = planOf(policy(), verdicts(), applied());
    Set<String> recommendShare = verdicts().entrySet().stream()
        .filter(e -> e.getValue().recommendShare()).map(Map.Entry::getKey).collect(Collectors.toSet());
    for (String name : recommendShare) {
      if (!applied().contains(name)) {
        assertTrue(plan.wantsShare().contains(name), "plan does not report " + name + " in wantsShare");
      }
    }
    Set<String> extra = new TreeSet<>(plan.wantsShare());
    extra.removeAll(recommendShare);
    assertEquals(Set.of(), extra, "plan reports servers whose verdict does not recommend sharing in wantsShare");
  }

  @Test
  void applyWritesExactlyThePlanAndMarksItApplied() {
    SeedingPolicy p = policy();
    SeedPlan plan = planOf(p, verdicts(), applied());
    Map<String, Object> section = new LinkedHashMap<>();
    Set<String> applied = new LinkedHashSet<>(applied());
    p.apply(plan, section, applied);
    assertEquals(plan.stubOverrides(), section, "apply wrote something other than the planned stub overrides");
    Set<String> added = new TreeSet<>(applied);
    added.removeAll(applied());
    assertEquals(new TreeSet<>(plan.stubOverrides().keySet()), added, "apply marked other servers than those it seeded");
    assertTrue(applied.containsAll(applied()), "apply removed applied markers");
  }

  @Test
  void applyNeverTurnsSharingOnNorTouchesOtherEntries() {
    SeedingPolicy p = policy();
    SeedPlan plan = planOf(p, verdicts(), applied());
    Map<String, Object> section = new LinkedHashMap<>();
    section.put("operator-choice", false);
    section.put("measured", false);
    section.put("not-a-boolean", "left alone");
    Map<String, Object> before = new LinkedHashMap<>(section);
    p.apply(plan, section, new LinkedHashSet<>(applied()));
    for (Map.Entry<String, Object> e : before.entrySet()) {
      if (!plan.stubOverrides().containsKey(e.getKey())) {
        assertEquals(e.getValue(), section.get(e.getKey()), "apply changed the entry of " + e.getKey() + ", which was not planned");
      }
    }
    Set<String> added = new TreeSet<>(section.keySet());
    added.removeAll(before.keySet());
    added.removeAll(plan.stubOverrides().keySet());
    assertEquals(Set.of(), added, "apply wrote keys outside the plan (sharing is never turned on by seeding)");
  }

  @Test
  void applyNeverSeedsAServerMarkedAppliedSinceThePlan() {
    SeedingPolicy p = policy();
    SeedPlan plan = planOf(p, verdicts(), applied());
    Set<String> applied = new LinkedHashSet<>(applied());
    applied.addAll(plan.stubOverrides().keySet());
    Map<String, Object> section = new LinkedHashMap<>();
    p.apply(plan, section, applied);
    assertEquals(Map.of(), section, "apply seeded servers that were marked applied after the plan was made");
  }

  private static SeedPlan planOf(SeedingPolicy p, Map<String, Verdict> verdicts, Set<String> applied) {
    SeedPlan plan = p.plan(verdicts, applied);
    assertNotNull(plan, "plan returned null");
    return plan;
  }
}
