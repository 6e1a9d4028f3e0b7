package dev.cotenant.gateway.seeding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.providers.seeding.DefaultSeedingPolicy;
import dev.cotenant.spi.PreflightCache;
import dev.cotenant.spi.PreflightRecord;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.testkit.contract.Samples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SeederTest {
  private static final Verdict MEASURED = Samples.verdicts().get("measured");
  private static final Verdict DECLARED = Samples.verdicts().get("declared");

  /** Markers only; rows are not used by seeding. */
  static final class MarkerCache implements PreflightCache {
    final Set<String> applied = new HashSet<>();
    int flushes;

    @Override
    public Snapshot load() {
      return new Snapshot(Map.of(), applied);
    }

    @Override
    public void put(PreflightRecord record) {
      throw new AssertionError("seeding writes no rows");
    }

    @Override
    public void markApplied(String serverName) {
      applied.add(serverName);
    }

    @Override
    public void flush() {
      flushes++;
    }
  }

  @TempDir Path dir;

  @Test
  void seedsOnceIntoStubOverridesAndNeverFlipsTheSharingSwitch() throws Exception {
    Path f = dir.resolve("mcp.json");
    String original = "{\"mcpServers\":{\"echo\":{\"command\":\"e\"},\"caller\":{\"command\":\"c\"}}}";
    Files.writeString(f, original);
    MarkerCache cache = new MarkerCache();
    Seeder seeder = new Seeder(new DefaultSeedingPolicy(), cache);
    Map<String, Verdict> verdicts = Map.of("echo", MEASURED, "caller", DECLARED);

    SeedPlan plan = seeder.apply(new LockedJsonFile(f), verdicts);

    assertEquals(Set.of("caller"), plan.wantsShare());
    JsonNode root = JsonMapper.builder().build().readTree(Files.readString(f));
    assertTrue(root.get("cotenant").get("stubOverrides").get("echo").booleanValue());
    assertFalse(root.get("cotenant").has("sharing"), "seeding never writes the sharing switch");
    assertEquals(Set.of("echo", "caller"), cache.applied);
    assertEquals(1, cache.flushes);

    // the operator switches echo off; a later start must not undo it
    Files.writeString(
        f,
        Files.readString(f).replace("\"echo\": true", "\"echo\": false"));
    SeedPlan second = seeder.apply(new LockedJsonFile(f), verdicts);
    assertTrue(second.stubOverrides().isEmpty());
    JsonNode after = JsonMapper.builder().build().readTree(Files.readString(f));
    assertFalse(after.get("cotenant").get("stubOverrides").get("echo").booleanValue());
    assertEquals(1, cache.flushes, "nothing new to mark");
  }

  @Test
  void aPolicyIsHandedTheSectionAsLoadedWithTheOperatorsEntries() throws Exception {
    // Kills Seeder.apply without the copy of the loaded stubOverrides into the section handed to
    // the policy (VoidMethodCallMutator on the forEach): the SPI gives a policy "a loaded config
    // section", and one that leaves the operator's own entries alone must be able to see them.
    Path f = dir.resolve("mcp.json");
    Files.writeString(f, "{\"mcpServers\":{\"echo\":{\"command\":\"e\"}},"
        + "\"cotenant\":{\"stubOverrides\":{\"manual\":false}}}");
    Map<String, Object> seen = new java.util.LinkedHashMap<>();
    DefaultSeedingPolicy defaults = new DefaultSeedingPolicy();
    dev.cotenant.spi.SeedingPolicy recording = new dev.cotenant.spi.SeedingPolicy() {
      @Override
      public SeedPlan plan(Map<String, Verdict> verdicts, Set<String> applied) {
        return defaults.plan(verdicts, applied);
      }

      @Override
      public void apply(SeedPlan plan, Map<String, Object> stubOverrides, Set<String> applied) {
        stubOverrides.forEach((k, v) -> seen.put(k, String.valueOf(v)));
        defaults.apply(plan, stubOverrides, applied);
      }
    };
    new Seeder(recording, new MarkerCache()).apply(new LockedJsonFile(f), Map.of("echo", MEASURED));
    assertEquals(Map.of("manual", "false"), seen);
    JsonNode overrides = JsonMapper.builder().build().readTree(Files.readString(f)).get("cotenant").get("stubOverrides");
    assertFalse(overrides.get("manual").booleanValue(), "the operator's entry is kept");
    assertTrue(overrides.get("echo").booleanValue());
  }

  @Test
  void planWritesNothing() throws Exception {
    MarkerCache cache = new MarkerCache();
    Seeder seeder = new Seeder(new DefaultSeedingPolicy(), cache);

    SeedPlan plan = seeder.plan(Map.of("echo", MEASURED));

    assertEquals(Map.of("echo", true), plan.stubOverrides());
    assertTrue(cache.applied.isEmpty());
    assertEquals(0, cache.flushes);
  }
}
