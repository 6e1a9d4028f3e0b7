package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.gateway.pool.IdleSchedule.Deadline;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When an idle entry closes: the drain grace, the hard idle cap from the first idle moment, dedicated entries. */
class IdleScheduleTest {
  private static final Duration GRACE = Duration.ofSeconds(10);
  private static final Duration CAP = Duration.ofSeconds(30);
  private static final String GRACE_ENDED = "the drain grace of PT10S ended";
  private static final String CAP_ENDED = "the idle cap of PT30S from its first idle moment ended";

  @Test
  void anEntryGoingIdleClosesAfterTheGrace() {
    IdleSchedule s = new IdleSchedule(GRACE, CAP);
    s.attached(0);
    assertEquals(new Deadline(15_000, GRACE_ENDED), s.idle(5_000, Placement.SHARED));
  }

  @Test
  void flappingNeverMovesTheFirstIdleMomentSoTheCapEndsIt() {
    IdleSchedule s = new IdleSchedule(GRACE, CAP);
    s.attached(0);
    s.idle(5_000, Placement.SHARED); // the first idle moment: 5 s, the cap ends at 35 s
    s.attached(6_000);
    assertEquals(new Deadline(18_000, GRACE_ENDED), s.idle(8_000, Placement.SHARED));
    s.attached(30_000);
    assertEquals(new Deadline(35_000, CAP_ENDED), s.idle(31_000, Placement.SHARED));
    s.attached(36_000);
    Deadline past = s.idle(37_000, Placement.SHARED);
    assertEquals(new Deadline(35_000, CAP_ENDED), past);
    assertEquals(0, past.delayFrom(37_000), "an idle moment past the cap closes at once");
  }

  @Test
  void beingAttachedForAWholeGraceMovesTheFirstIdleMoment() {
    IdleSchedule s = new IdleSchedule(GRACE, CAP);
    s.attached(0);
    s.idle(5_000, Placement.SHARED);
    s.attached(40_000);
    // Attached for exactly one grace: the cap is measured from 50 s now.
    assertEquals(new Deadline(60_000, GRACE_ENDED), s.idle(50_000, Placement.SHARED));
    s.attached(55_000);
    assertEquals(new Deadline(70_000, GRACE_ENDED), s.idle(60_000, Placement.SHARED));
    s.attached(71_000);
    assertEquals(new Deadline(80_000, CAP_ENDED), s.idle(75_000, Placement.SHARED));
  }

  @Test
  void theFirstIdleMomentIsSetWhereverTheClockStands() {
    IdleSchedule s = new IdleSchedule(GRACE, CAP);
    // Never attached (a backend that came up after its session left): idle from this moment.
    assertEquals(new Deadline(3_600_000 + 10_000, GRACE_ENDED), s.idle(3_600_000, Placement.SHARED));
    IdleSchedule negative = new IdleSchedule(GRACE, CAP);
    negative.attached(-50_000);
    assertEquals(new Deadline(-30_000, GRACE_ENDED), negative.idle(-40_000, Placement.SHARED));
  }

  @Test
  void aDedicatedEntryClosesAsSoonAsItsSessionLeaves() {
    IdleSchedule s = new IdleSchedule(GRACE, CAP);
    s.attached(0);
    Deadline d = s.idle(2_000, Placement.DEDICATED);
    assertEquals(new Deadline(2_000, "its session left (a dedicated backend serves one session)"), d);
    assertEquals(0, d.delayFrom(2_000));
  }

  @Test
  void deadlinesTooFarToAddEndAtTheEndOfTime() {
    IdleSchedule s = new IdleSchedule(Duration.ofMillis(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE));
    s.attached(0);
    Deadline d = s.idle(1_000, Placement.SHARED);
    assertEquals(Long.MAX_VALUE, d.at());
    assertEquals(Long.MAX_VALUE - 1_000, d.delayFrom(1_000));
    IdleSchedule grace = new IdleSchedule(Duration.ofMillis(Long.MAX_VALUE), CAP);
    grace.attached(0);
    assertEquals(new Deadline(31_000, CAP_ENDED), grace.idle(1_000, Placement.SHARED));
  }
}
