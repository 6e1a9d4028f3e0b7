package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Properties of {@link LogSafe} over arbitrary text, including lone surrogates. */
class LogSafePropertyTest {

  @Property
  void outputIsOneLineBoundedAndFreeOfControlCharacters(
      @ForAll String text, @ForAll @IntRange(min = 0, max = 300) int max) {
    String out = LogSafe.escape(text, max);
    assertTrue(out.length() <= max + 1, () -> "length " + out.length() + " over bound " + max);
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      assertFalse(c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029',
          () -> "control character in " + out);
      if (Character.isHighSurrogate(c)) {
        assertTrue(i + 1 < out.length() && Character.isLowSurrogate(out.charAt(i + 1)), "split pair in " + out);
      }
    }
  }

  @Property
  void uncutOutputDecodesBackToTheInput(@ForAll String text) {
    String out = LogSafe.escape(text, Integer.MAX_VALUE);
    assertEquals(text, unescape(out));
  }

  private static String unescape(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char n = s.charAt(++i);
      switch (n) {
        case 'n':
          sb.append('\n');
          break;
        case 'r':
          sb.append('\r');
          break;
        case 't':
          sb.append('\t');
          break;
        case '\\':
          sb.append('\\');
          break;
        case 'u':
          sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
          i += 4;
          break;
        default:
          throw new AssertionError("unexpected escape \\" + n + " in " + s);
      }
    }
    return sb.toString();
  }
}
