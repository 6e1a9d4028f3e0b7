package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The reads of {@code /proc} teardown relies on, each at its edges: the parsers on lines written
 * here, the reads on this JVM's own entries. (The environment scan across chunk boundaries and
 * the stat line's parentheses are in {@link SpawnCookieTest}.) Each test names the mutants of a
 * mutation run it kills.
 */
class ProcTableTest {
  private static final String STAT_TAIL = " 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654";

  /** Kills {@code SUPPORTED} computed as false. */
  @Test
  void theTableIsReadableWhereProcIsReadable() {
    assertEquals(Files.isReadable(Path.of("/proc/self/environ")), ProcTable.SUPPORTED);
  }

  /** Kills {@code pids}, {@code out.size() >= max} changed to {@code >}: one pid too many. */
  @Test
  void atMostTheAskedNumberOfPidsIsListed() {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    assertEquals(1, ProcTable.pids(1).size());
    assertEquals(3, ProcTable.pids(3).size());
    assertEquals(List.of(), ProcTable.pids(0));
    assertTrue(ProcTable.pids(10_000).contains(ProcessHandle.current().pid()), "this process is listed");
  }

  /**
   * Kills {@code pids} without its sort: {@code /proc} lists pids upwards, so more than one rise
   * in the list means it was not put newest first.
   */
  @Test
  void theListedPidsRiseAtMostOnceWhereTheCounterWrapped() {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    List<Long> pids = ProcTable.pids(10_000);
    assertTrue(pids.size() > 3, pids.toString());
    int rises = 0;
    for (int i = 1; i < pids.size(); i++) {
      if (pids.get(i) > pids.get(i - 1)) {
        rises++;
      }
    }
    assertTrue(rises <= 1, "newest first: " + pids);
  }

  /**
   * Kills {@code newestFirst} with {@code pid > last} changed to {@code >=} (the last pid handed
   * out would sort among the oldest), negated, or the order reversed.
   */
  @Test
  void pidsUpToTheLastHandedOutComeFirstDownwardsThenThoseAboveIt() {
    List<Long> pids = new ArrayList<>(List.of(1L, 100L, 3L, 8L, 9L, 7L, 2L));
    ProcTable.newestFirst(pids, 8);
    assertEquals(List.of(8L, 7L, 3L, 2L, 1L, 100L, 9L), pids);
    ProcTable.newestFirst(pids, Long.MAX_VALUE);
    assertEquals(List.of(100L, 9L, 8L, 7L, 3L, 2L, 1L), pids, "no last pid known: simply downwards");
  }

  /** Kills {@code isPid}'s bounds: the empty name, the length bound at 18, and each digit bound. */
  @Test
  void aPidIsOneToEighteenDecimalDigits() {
    assertTrue(ProcTable.isPid("1"));
    assertTrue(ProcTable.isPid("0123456789"));
    assertTrue(ProcTable.isPid("9".repeat(18)));
    assertFalse(ProcTable.isPid("9".repeat(19)), "longer than any pid");
    assertFalse(ProcTable.isPid(""));
    assertFalse(ProcTable.isPid("self"));
    assertFalse(ProcTable.isPid("12/"), "'/' sorts just below '0'");
    assertFalse(ProcTable.isPid(":12"), "':' sorts just above '9'");
  }

  /** Kills {@code parseLastPid} with its field count changed or its answer replaced. */
  @Test
  void theLastPidIsTheFifthFieldOfLoadavg() {
    assertEquals(Optional.of(6789L), ProcTable.parseLastPid("0.50 0.40 0.30 2/345 6789\n"));
    assertEquals(Optional.of(6789L), ProcTable.parseLastPid("  0.50  0.40 0.30 2/345   6789  "));
    assertEquals(Optional.empty(), ProcTable.parseLastPid("0.50 0.40 0.30 6789"), "four fields");
    assertEquals(Optional.empty(), ProcTable.parseLastPid("0.50 0.40 0.30 2/345 6789 1"), "six fields");
    assertEquals(Optional.empty(), ProcTable.parseLastPid("0.50 0.40 0.30 2/345 next"));
    assertEquals(Optional.empty(), ProcTable.parseLastPid(""));
  }

  /**
   * Kills {@code parseStat} with {@code close < 0} changed to {@code <= 0}, {@code fields.length
   * < 20} changed to {@code <= 20}, and the state's length check negated.
   */
  @Test
  void aStatLineNeedsItsStateAndTwentyFieldsAfterTheName() {
    assertEquals(Optional.of(new ProcTable.Stat('S', 1, 987654)), ProcTable.parseStat("4242 (sh) S" + STAT_TAIL));
    assertEquals(Optional.of(new ProcTable.Stat('S', 1, 987654)), ProcTable.parseStat(") S" + STAT_TAIL),
        "the name's parenthesis first on the line");
    String nineteen = STAT_TAIL.substring(0, STAT_TAIL.lastIndexOf(' '));
    assertEquals(Optional.empty(), ProcTable.parseStat("4242 (sh) S" + nineteen), "nineteen fields");
    assertEquals(Optional.empty(), ProcTable.parseStat("4242 (sh) SS" + STAT_TAIL), "a state of two letters");
    assertEquals(Optional.empty(), ProcTable.parseStat("4242 (sh) S x" + STAT_TAIL.substring(2)), "a parent that is no number");
  }

  /** Kills {@code Stat.gone} with any of its three comparisons changed or its answer replaced. */
  @Test
  void zombiesAndDeadTasksAreGoneAndEveryOtherStateIsNot() {
    for (char state : "ZXx".toCharArray()) {
      assertTrue(new ProcTable.Stat(state, 1, 1).gone(), String.valueOf(state));
    }
    for (char state : "RSDTtWIP".toCharArray()) {
      assertFalse(new ProcTable.Stat(state, 1, 1).gone(), String.valueOf(state));
    }
  }

  /** Kills {@code stat} returning empty. */
  @Test
  void thisProcessIsRunningUnderItsParentAndAVanishedOneHasNoStat() {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    ProcTable.Stat self = ProcTable.stat(ProcessHandle.current().pid()).orElseThrow();
    assertFalse(self.gone(), "state " + self.state());
    assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), self.ppid());
    assertTrue(self.startTicks() > 0);
    assertEquals(Optional.empty(), ProcTable.stat(Long.MAX_VALUE));
  }

  /** Kills {@code environHolds} returning false or true outright. */
  @Test
  void thisProcessesEnvironmentHoldsItsOwnEntriesWhole() {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    Map.Entry<String, String> any = System.getenv().entrySet().stream()
        .filter(e -> !e.getValue().isEmpty()).findFirst().orElseThrow();
    byte[] entry = (any.getKey() + "=" + any.getValue()).getBytes(StandardCharsets.UTF_8);
    long self = ProcessHandle.current().pid();
    assertTrue(ProcTable.environHolds(self, entry, 1 << 20), any.getKey());
    byte[] cut = (any.getKey() + "=" + any.getValue().substring(0, any.getValue().length() - 1))
        .getBytes(StandardCharsets.UTF_8);
    assertFalse(ProcTable.environHolds(self, cut, 1 << 20), "an entry's beginning is no entry");
    assertFalse(ProcTable.environHolds(Long.MAX_VALUE, entry, 1 << 20), "a process that is not there");
  }

  /**
   * Kills {@code holds} reading past its bound: the entry's terminating NUL is the last byte
   * allowed, and one byte less cuts it off.
   */
  @Test
  void anEntryIsFoundOnlyWhenItsTerminatorIsWithinTheBound() throws IOException {
    byte[] environ = "A=1\0B=22\0".getBytes(StandardCharsets.UTF_8);
    byte[] b = "B=22".getBytes(StandardCharsets.UTF_8);
    assertTrue(ProcTable.holds(new ByteArrayInputStream(environ), b, environ.length));
    assertFalse(ProcTable.holds(new ByteArrayInputStream(environ), b, environ.length - 1));
    assertFalse(ProcTable.holds(new ByteArrayInputStream(environ), b, 0));
  }

  /**
   * Kills {@code holds} with {@code maxBytes - total} changed to {@code maxBytes + total}: the
   * bound of every read after the first (16 KiB) one. The entry straddles the first read's end, so
   * it is found only across two reads, and one byte less than the whole stream cuts it off.
   */
  @Test
  void theBoundHoldsForEveryReadAndAnEntryAcrossTwoReadsIsFound() throws IOException {
    byte[] environ = ("A=" + "x".repeat(16 * 1024 - 6) + "\0B=22\0").getBytes(StandardCharsets.UTF_8);
    byte[] b = "B=22".getBytes(StandardCharsets.UTF_8);
    assertTrue(environ.length > 16 * 1024 && environ.length < 16 * 1024 + 8, "straddles the first read");
    assertTrue(ProcTable.holds(new ByteArrayInputStream(environ), b, environ.length));
    assertFalse(ProcTable.holds(new ByteArrayInputStream(environ), b, environ.length - 1));
  }

  /** Kills {@code lastPid} returning empty (every table would then be read as if pids never wrapped). */
  @Test
  void theLastPidIsReadFromTheKernel() {
    assumeTrue(ProcTable.SUPPORTED, "needs /proc");
    long last = ProcTable.lastPid().orElseThrow();
    assertTrue(last > 0, "last pid " + last);
  }
}
