package dev.cotenant.gateway.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The cut of a pre-flight's not-run reason in a row. */
class RowBuilderTest {
  @Test
  void aReasonIsCutAtItsBoundAndNeverInsideASurrogatePair() {
    // Mutants: bounded's "at most the bound" at "fewer than", its end computed with an addition, its surrogate
    // check negated or moving the end the other way, and it returning "" (all but the first uncovered before).
    int max = RowBuilder.NOT_RUN_REASON_MAX;
    String exactly = "r".repeat(max);
    assertEquals(exactly, RowBuilder.bounded(exactly));
    String cut = RowBuilder.bounded(exactly + "s");
    assertEquals("r".repeat(max - 1) + "…", cut);
    assertEquals(max, cut.length(), "the cut text with its ellipsis is as long as the bound");
    String pairAtTheCut = "r".repeat(max - 2) + "\uD83D\uDE00" + "tail";
    assertEquals("r".repeat(max - 2) + "…", RowBuilder.bounded(pairAtTheCut));
    String pairBeforeTheCut = "r".repeat(max - 3) + "\uD83D\uDE00" + "tail";
    assertEquals("r".repeat(max - 3) + "\uD83D\uDE00…", RowBuilder.bounded(pairBeforeTheCut));
  }
}
