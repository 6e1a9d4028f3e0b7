package dev.cotenant.providers.seeding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Verdict;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.testkit.contract.Samples;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DefaultSeedingPolicyTest {
  private static final Verdict MEASURED = Samples.verdicts().get("measured");
  private static final Verdict DECLARED = Samples.verdicts().get("declared");
  private static final Verdict UNKNOWN = Samples.verdicts().get("unknown");

  private final DefaultSeedingPolicy policy = new DefaultSeedingPolicy();
  /** The stub overrides and applied markers a test's seeding writes to. */
  private final Map<String, Object> overrides = new HashMap<>();
  private final Set<String> applied = new HashSet<>();

  /** Plans {@code verdicts} against this test's applied markers and applies the plan. */
  private void seed(Map<String, Verdict> verdicts) {
    policy.apply(policy.plan(verdicts, applied), overrides, applied);
  }

  private static Map<String, Verdict> verdicts() {
    Map<String, Verdict> v = new LinkedHashMap<>();
    v.put("echo", MEASURED);
    v.put("caller", DECLARED);
    v.put("new", UNKNOWN);
    return v;
  }

  /** {@link #verdicts()} with the verdict of {@code name} replaced by {@code verdict}. */
  private static Map<String, Verdict> verdictsWith(String name, Verdict verdict) {
    Map<String, Verdict> v = verdicts();
    v.put(name, verdict);
    return v;
  }

  @Test
  void planStubsWhatIsRecommendedAndReportsSharingWithoutActingOnIt() {
    SeedPlan plan = policy.plan(verdicts(), Set.of());

    assertEquals(Map.of("echo", true, "caller", true), plan.stubOverrides());
    assertEquals(Set.of("caller"), plan.wantsShare());
    assertEquals(Set.of(), plan.alreadySeeded());
  }

  @Test
  void planIsPure() {
    Map<String, Verdict> v = verdicts();
    Map<String, Verdict> before = new LinkedHashMap<>(v);
    applied.add("echo");

    SeedPlan first = policy.plan(v, applied);
    SeedPlan second = policy.plan(v, applied);

    assertEquals(first, second);
    assertEquals(before, v);
    assertEquals(Set.of("echo"), applied);
  }

  @Test
  void eachServerIsSeededOnce() {
    seed(verdicts());
    assertEquals(Set.of("echo", "caller"), applied);

    SeedPlan again = policy.plan(verdicts(), applied);

    assertTrue(again.stubOverrides().isEmpty());
    assertEquals(Set.of("echo", "caller"), again.alreadySeeded());
  }

  @Test
  void anOperatorsSwitchOffSurvivesAnUpgradeOfThatServer() {
    seed(verdicts());
    overrides.put("echo", false); // the operator switches it off

    // an upgrade: a new binary, a fresh measurement, the same recommendation
    seed(verdictsWith("echo", MEASURED));

    assertEquals(false, overrides.get("echo"));
  }

  @Test
  void aServerRemovedAndReAddedIsNotSeededTwice() {
    seed(verdicts());
    overrides.remove("echo"); // removed from config ...
    Map<String, Verdict> without = verdicts();
    without.remove("echo");
    seed(without);

    seed(verdicts()); // ... and re-added

    assertFalse(overrides.containsKey("echo"));
  }

  @Test
  void aServerWithoutARecommendationIsLeftForALaterStart() {
    seed(verdicts());
    assertFalse(applied.contains("new"));

    seed(verdictsWith("new", MEASURED));

    assertEquals(true, overrides.get("new"));
  }

  @Test
  void applyNeverWritesASharingSwitch() {
    seed(verdicts());
    assertEquals(Set.of("echo", "caller"), overrides.keySet());
    assertTrue(overrides.values().stream().allMatch(Boolean.TRUE::equals));
  }
}
