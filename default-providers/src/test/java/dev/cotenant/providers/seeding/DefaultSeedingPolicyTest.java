package dev.cotenant.providers.seeding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Assessor;
import dev.cotenant.api.Evidence;
import dev.cotenant.api.Finding;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.Verdict;
import dev.cotenant.spi.SeedPlan;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DefaultSeedingPolicyTest {
  private static final Verdict MEASURED =
      Assessor.assess(new Evidence(List.of(), List.of(), PreflightOutcome.passed(), true));
  private static final Verdict DECLARED =
      Assessor.assess(
          new Evidence(
              List.of(),
              List.of(Finding.of("t", ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity")),
              PreflightOutcome.passed(),
              true));
  private static final Verdict UNKNOWN = Assessor.assess(Evidence.none());

  private final DefaultSeedingPolicy policy = new DefaultSeedingPolicy();

  private static Map<String, Verdict> verdicts() {
    Map<String, Verdict> v = new LinkedHashMap<>();
    v.put("echo", MEASURED);
    v.put("caller", DECLARED);
    v.put("new", UNKNOWN);
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
    Set<String> applied = new HashSet<>(Set.of("echo"));

    SeedPlan first = policy.plan(v, applied);
    SeedPlan second = policy.plan(v, applied);

    assertEquals(first, second);
    assertEquals(before, v);
    assertEquals(Set.of("echo"), applied);
  }

  @Test
  void eachServerIsSeededOnce() {
    Map<String, Object> overrides = new HashMap<>();
    Set<String> applied = new HashSet<>();
    policy.apply(policy.plan(verdicts(), applied), overrides, applied);
    assertEquals(Set.of("echo", "caller"), applied);

    SeedPlan again = policy.plan(verdicts(), applied);

    assertTrue(again.stubOverrides().isEmpty());
    assertEquals(Set.of("echo", "caller"), again.alreadySeeded());
  }

  @Test
  void anOperatorsSwitchOffSurvivesAnUpgradeOfThatServer() {
    Map<String, Object> overrides = new HashMap<>();
    Set<String> applied = new HashSet<>();
    policy.apply(policy.plan(verdicts(), applied), overrides, applied);
    overrides.put("echo", false); // the operator switches it off

    // an upgrade: a new binary, a fresh measurement, the same recommendation
    Map<String, Verdict> upgraded = verdicts();
    upgraded.put("echo", MEASURED);
    policy.apply(policy.plan(upgraded, applied), overrides, applied);

    assertEquals(false, overrides.get("echo"));
  }

  @Test
  void aServerRemovedAndReAddedIsNotSeededTwice() {
    Map<String, Object> overrides = new HashMap<>();
    Set<String> applied = new HashSet<>();
    policy.apply(policy.plan(verdicts(), applied), overrides, applied);
    overrides.remove("echo"); // removed from config ...
    Map<String, Verdict> without = verdicts();
    without.remove("echo");
    policy.apply(policy.plan(without, applied), overrides, applied);

    policy.apply(policy.plan(verdicts(), applied), overrides, applied); // ... and re-added

    assertFalse(overrides.containsKey("echo"));
  }

  @Test
  void aServerWithoutARecommendationIsLeftForALaterStart() {
    Map<String, Object> overrides = new HashMap<>();
    Set<String> applied = new HashSet<>();
    policy.apply(policy.plan(verdicts(), applied), overrides, applied);
    assertFalse(applied.contains("new"));

    Map<String, Verdict> later = verdicts();
    later.put("new", MEASURED);
    policy.apply(policy.plan(later, applied), overrides, applied);

    assertEquals(true, overrides.get("new"));
  }

  @Test
  void applyNeverWritesASharingSwitch() {
    Map<String, Object> overrides = new HashMap<>();
    policy.apply(policy.plan(verdicts(), Set.of()), overrides, new HashSet<>());
    assertEquals(Set.of("echo", "caller"), overrides.keySet());
    assertTrue(overrides.values().stream().allMatch(Boolean.TRUE::equals));
  }
}
