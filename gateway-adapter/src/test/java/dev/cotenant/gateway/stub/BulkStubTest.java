package dev.cotenant.gateway.stub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.config.GatewaySettings;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.testkit.contract.Samples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class BulkStubTest {
  /** The kit's sample verdicts, by server name: {@code measured}, {@code declared} and {@code unknown} among them. */
  private static final Map<String, Verdict> VERDICTS = Samples.verdicts();

  @TempDir Path dir;

  private LockedJsonFile config(boolean sharing) throws Exception {
    Path f = dir.resolve("mcp.json");
    Files.writeString(f, "{\"mcpServers\":{},\"cotenant\":{\"sharing\":" + sharing + "}}");
    return new LockedJsonFile(f);
  }

  private static JsonNode read(LockedJsonFile f) throws Exception {
    return JsonMapper.builder().build().readTree(Files.readString(f.file()));
  }

  @Test
  void withSharingOffAStubNeedsRecommendStub() throws Exception {
    LockedJsonFile f = config(false);

    BulkStub.Result r = BulkStub.stub(f, List.of("measured", "declared", "unknown", "ghost"), VERDICTS::get);

    assertEquals(List.of("measured", "declared"), r.stubbed());
    assertEquals(List.of("unknown", "ghost"), List.copyOf(r.skipped().keySet()));
    assertEquals("not configured", r.skipped().get("ghost"));
    JsonNode overrides = read(f).get("cotenant").get("stubOverrides");
    assertTrue(overrides.get("measured").booleanValue());
    assertTrue(overrides.get("declared").booleanValue());
    assertEquals(2, overrides.size());
  }

  @Test
  void withSharingOnAStubNeedsRecommendShare() throws Exception {
    LockedJsonFile f = config(true);

    BulkStub.Result r = BulkStub.stub(f, List.of("measured", "declared"), VERDICTS::get);

    assertEquals(List.of("declared"), r.stubbed());
    assertTrue(r.sharing());
    assertTrue(r.skipped().get("measured").startsWith("sharing is on"));
  }

  @Test
  void eligibilityIsDecidedFromTheSwitchAsReadInsideTheLockHold() throws Exception {
    LockedJsonFile f = config(false);
    // A second writer flips sharing ON while the bulk stub is deciding. It must wait for the
    // hold to end, so the decision (stub the measured server: sharing was off) and the write
    // see one config state, and the flip lands afterwards, unlost.
    AtomicReference<Thread> flipper = new AtomicReference<>();
    BulkStub.Result r =
        BulkStub.stub(
            f,
            List.of("measured"),
            name -> {
              Thread t =
                  new Thread(
                      () -> {
                        try {
                          f.update(false, root -> GatewaySettings.section(f.file(), root).put("sharing", true));
                        } catch (Exception e) {
                          throw new IllegalStateException(e);
                        }
                      });
              flipper.set(t);
              t.start();
              awaitBlocked(t);
              return VERDICTS.get(name);
            });
    flipper.get().join(TimeUnit.SECONDS.toMillis(30));

    assertEquals(List.of("measured"), r.stubbed());
    JsonNode after = read(f);
    assertTrue(after.get("cotenant").get("sharing").booleanValue(), "the concurrent flip is not lost");
    assertTrue(after.get("cotenant").get("stubOverrides").get("measured").booleanValue());
  }

  @Test
  void aSwitchFlippedBeforeTheHoldDecidesEvenIfTheCallerReadItEarlier() throws Exception {
    LockedJsonFile f = config(false);
    boolean callerSawSharing = GatewaySettings.sharing(f.file(), (tools.jackson.databind.node.ObjectNode) read(f));
    f.update(false, root -> GatewaySettings.section(f.file(), root).put("sharing", true));

    BulkStub.Result r = BulkStub.stub(f, List.of("measured"), VERDICTS::get);

    assertEquals(false, callerSawSharing);
    assertEquals(List.of(), r.stubbed(), "decided from the switch inside the hold (now on), not the caller's read");
  }

  private static void awaitBlocked(Thread t) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Thread.State s = t.getState();
      if (s == Thread.State.WAITING || s == Thread.State.BLOCKED || s == Thread.State.TIMED_WAITING) {
        return;
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the concurrent writer never blocked on the config lock");
  }
}
