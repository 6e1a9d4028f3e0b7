package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.generators.Generate;

/**
 * Properties of {@link LogSafe} over arbitrary text: up to 255 characters of any code unit but
 * surrogates, private use and noncharacters, control characters included. Each property is a
 * static method taking the theory to run and the escaping it checks, so
 * {@link PropertiesBiteTest} can show it fails on a broken one.
 */
class LogSafePropertyTest {

  @Test
  void outputIsOneLineBoundedAndFreeOfControlCharacters() {
    outputIsOneLineBoundedAndFreeOfControlCharacters(Theories.qt(), LogSafe::escape);
  }

  static void outputIsOneLineBoundedAndFreeOfControlCharacters(
      QuickTheory qt, BiFunction<String, Integer, String> escape) {
    qt.forAll(TextGenerators.strings(), Generate.range(0, 300))
        .checkAssert(
            (text, max) -> {
              String out = escape.apply(text, max);
              assertTrue(out.length() <= max + 1, () -> "length " + out.length() + " over bound " + max);
              for (int i = 0; i < out.length(); i++) {
                char c = out.charAt(i);
                assertFalse(c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029',
                    () -> "control character in " + out);
                if (Character.isHighSurrogate(c)) {
                  assertTrue(i + 1 < out.length() && Character.isLowSurrogate(out.charAt(i + 1)), "split pair in " + out);
                }
              }
            });
  }

  @Test
  void uncutOutputDecodesBackToTheInput() {
    uncutOutputDecodesBackToTheInput(Theories.qt(), text -> LogSafe.escape(text, Integer.MAX_VALUE));
  }

  static void uncutOutputDecodesBackToTheInput(QuickTheory qt, Function<String, String> escapeUncut) {
    qt.forAll(TextGenerators.strings())
        .checkAssert(text -> assertEquals(text, unescape(escapeUncut.apply(text))));
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
