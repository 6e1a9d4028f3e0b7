package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Text a server chose must land on exactly one, bounded log line. */
class LogSafeTest {

  @Test
  void newlinesAndCarriageReturnsAndTabsAreEscaped() {
    assertEquals("a\\nb\\rc\\td", LogSafe.escape("a\nb\rc\td"));
  }

  @Test
  void escIsEscapedSoNoTerminalSequenceSurvives() {
    assertEquals("\\u001b[31mred", LogSafe.escape("\u001b[31mred"));
  }

  @Test
  void otherControlCharactersAndLineSeparatorsAreEscaped() {
    assertEquals("\\u0000\\u007f\\u0085\\u2028\\u2029", LogSafe.escape("\u0000\u007f\u0085\u2028\u2029"));
  }

  @Test
  void bidiControlsAndZeroWidthCharactersAreEscapedSoANameCannotHideOrReorderText() {
    assertEquals("evil\\u202egnp.exe", LogSafe.escape("evil\u202egnp.exe"));
    assertEquals("a\\u200bb\\u200dc\\ufeffd\\u2066e\\u2069f\\u061cg", LogSafe.escape("a\u200bb\u200dc\ufeffd\u2066e\u2069f\u061cg"));
    assertEquals("\u05e9\u05dc\u05d5\u05dd", LogSafe.escape("\u05e9\u05dc\u05d5\u05dd"), "right-to-left letters themselves are kept");
  }

  @Test
  void backslashesAreDoubledSoAnEscapeCannotBeForged() {
    assertEquals("\\\\n", LogSafe.escape("\\n"));
  }

  @Test
  void ordinaryTextIncludingNonAsciiIsKept() {
    assertEquals("GITHUB_TOKEN ü 漢字 😀", LogSafe.escape("GITHUB_TOKEN ü 漢字 😀"));
  }

  @Test
  void longTextIsCutAtTheDefaultBoundWithAnEllipsis() {
    String out = LogSafe.escape("x".repeat(1000));
    assertEquals("x".repeat(LogSafe.DEFAULT_MAX) + "…", out);
  }

  @Test
  void textExactlyAtTheBoundIsNotCut() {
    assertEquals("abcde", LogSafe.escape("abcde", 5));
    assertEquals("abcd…", LogSafe.escape("abcdef", 4));
  }

  @Test
  void anEscapeThatWouldCrossTheBoundIsCutWhole() {
    assertEquals("abcd…", LogSafe.escape("abcd\nefgh", 5));
    assertEquals("abc\\n…", LogSafe.escape("abc\ndefgh", 5));
  }

  @Test
  void aSurrogatePairIsNeverSplitByTheCut() {
    assertEquals("abcd…", LogSafe.escape("abcd😀", 5));
    assertEquals("abc😀", LogSafe.escape("abc😀", 5));
  }

  /**
   * A space is printable and kept. Kills the changed boundary of c < 0x20 in LogSafe.escape
   * (ConditionalsBoundaryMutator, line 51).
   */
  @Test
  void aSpaceIsKept() {
    assertEquals("a b", LogSafe.escape("a b"));
    assertEquals("\\u001f", LogSafe.escape("\u001f"));
  }

  /**
   * Each invisible range is escaped at both ends and ends there. Kills the changed boundaries of
   * the range comparisons in LogSafe.invisible (ConditionalsBoundaryMutator, line 77).
   */
  @Test
  void invisibleRangesAreEscapedUpToTheirEndsInclusive() {
    for (char c : new char[] {'\u200b', '\u200f', '\u202a', '\u202e', '\u2060', '\u2069'}) {
      assertEquals(String.format("\\u%04x", (int) c), LogSafe.escape(String.valueOf(c)));
    }
    for (char c : new char[] {'\u200a', '\u2010', '\u202f', '\u205f', '\u206a'}) {
      assertEquals(String.valueOf(c), LogSafe.escape(String.valueOf(c)));
    }
  }
  /**
   * The C1 control range U+0080 to U+009F is escaped at both ends; U+00A0 just after it is kept.
   * Kills the changed boundaries of c >= 0x80 and c < 0xa0 in LogSafe.escape
   * (ConditionalsBoundaryMutator, reported on line 51).
   */
  @Test
  void theC1RangeIsEscapedUpToItsEndsInclusive() {
    assertEquals("\\u0080", LogSafe.escape("\u0080"));
    assertEquals("\\u009f", LogSafe.escape("\u009f"));
    assertEquals("\u00a0", LogSafe.escape("\u00a0"));
    assertEquals("~", LogSafe.escape("~"));
  }
}
