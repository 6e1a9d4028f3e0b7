package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.probe.AnswerDiffPropertyTest.Same;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.quicktheories.QuickTheory;

/**
 * Every property of {@link AnswerDiffPropertyTest} fails on a deliberately broken comparison, over
 * as many examples as its own test, so a green property run means something.
 */
class AnswerDiffPropertyBiteTest {
  /** Shrink cycles per bite: the failure is what matters here, not its smallest example. */
  private static final int SHRINK_CYCLES = 200;

  private static QuickTheory qt() {
    return AnswerDiffPropertyTest.qt().withShrinkCycles(SHRINK_CYCLES);
  }

  private static void assertFalsified(Executable property) {
    AssertionError failure =
        assertThrows(AssertionError.class, property, "the property held for a broken comparison");
    String report = String.valueOf(failure.getMessage());
    assertTrue(report.startsWith("Property falsified after "), report);
    assertTrue(report.contains("Seed was "), report);
  }

  /** Takes answers for the same only when they are the same objects: a shortcut that skips comparing. */
  private static final Same IDENTITY = (b, a, s) -> b == a && a == s;

  /** Never finds a difference. */
  private static final Same BLIND = (b, a, s) -> true;

  /** Compares the shared answer with the one before only: nothing is volatile. */
  private static final Same BEFORE_ONLY = (b, a, s) -> AnswerValues.sameValue(b, s);

  /** Takes a whole string for volatile when it changes at all, rather than its changed tokens. */
  private static final Same WHOLE_STRINGS =
      (b, a, s) -> (b instanceof String && a instanceof String && !b.equals(a)) || AnswerDiff.compare(b, a, s).same();

  @Test
  void anAnswerGivenThreeTimesIsTheSame() {
    assertFalsified(() -> AnswerDiffPropertyTest.anAnswerGivenThreeTimesIsTheSame(qt(), IDENTITY));
  }

  @Test
  void aChangeToAStableAnswerIsADifference() {
    assertFalsified(() -> AnswerDiffPropertyTest.aChangeToAStableAnswerIsADifference(qt(), BLIND));
  }

  @Test
  void aDedicatedAnswerIsTheSameAsTheDedicatedAnswers() {
    assertFalsified(() -> AnswerDiffPropertyTest.aDedicatedAnswerIsTheSameAsTheDedicatedAnswers(qt(), BEFORE_ONLY));
  }

  @Test
  void aDedicatedTextIsTheSameAsTheDedicatedTexts() {
    assertFalsified(() -> AnswerDiffPropertyTest.aDedicatedTextIsTheSameAsTheDedicatedTexts(qt(), BEFORE_ONLY));
  }

  @Test
  void aVolatileWordMayBeAnyWord() {
    assertFalsified(() -> AnswerDiffPropertyTest.aVolatileWordMayBeAnyWord(qt(), BEFORE_ONLY));
  }

  @Test
  void aVolatileWordDoesNotHideAnotherWord() {
    assertFalsified(() -> AnswerDiffPropertyTest.aVolatileWordDoesNotHideAnotherWord(qt(), WHOLE_STRINGS));
  }
}
