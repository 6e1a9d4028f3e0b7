package dev.cotenant.api;

import static org.quicktheories.generators.SourceDSL.lists;

import java.util.List;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Characters and strings for the api's properties. Every generator is drawn from QuickTheories'
 * own ranges, picks and lists, so a falsifying string shrinks: shorter, and towards the first
 * character of its range.
 */
final class TextGenerators {
  /**
   * The UTF-16 code units {@link #textChar()} draws from, as inclusive ranges: everything but
   * surrogates (U+D800 to U+DFFF), private use (U+E000 to U+F8FF) and the noncharacters U+FDD0 to
   * U+FDEF, U+FFFE and U+FFFF.
   */
  private static final char[][] TEXT_RANGES = {
    {'\u0000', '\ud7ff'}, {'\uf900', '\ufdcf'}, {'\ufdf0', '\ufffd'}
  };

  private static final int TEXT_CHAR_COUNT = textCharCount();

  private TextGenerators() {}

  private static int textCharCount() {
    int n = 0;
    for (char[] r : TEXT_RANGES) {
      n += r[1] - r[0] + 1;
    }
    return n;
  }

  /** Any character from {@code from} to {@code to}, each as likely. */
  static Gen<Character> charsBetween(char from, char to) {
    return Generate.range(from, to).map(i -> (char) i.intValue());
  }

  /** One of {@code chars}, each as likely. */
  static Gen<Character> charsOf(Character... chars) {
    return Generate.pick(List.of(chars));
  }

  /** Any UTF-16 code unit: control characters, unassigned ones and lone surrogates included. */
  static Gen<Character> anyChar() {
    return charsBetween(Character.MIN_VALUE, Character.MAX_VALUE);
  }

  /**
   * Any UTF-16 code unit a text can hold on its own: control characters and unassigned ones
   * included; surrogates, private use and noncharacters excluded. Each is as likely.
   */
  static Gen<Character> textChar() {
    return Generate.range(0, TEXT_CHAR_COUNT - 1).map(TextGenerators::textCharAt);
  }

  private static char textCharAt(int index) {
    int i = index;
    for (char[] r : TEXT_RANGES) {
      int size = r[1] - r[0] + 1;
      if (i < size) {
        return (char) (r[0] + i);
      }
      i -= size;
    }
    throw new IllegalArgumentException("no text character at " + index);
  }

  /** An ASCII letter, upper or lower case as likely. */
  static Gen<Character> alphaChar() {
    return Generate.oneOf(charsBetween('A', 'Z'), charsBetween('a', 'z'));
  }

  /** Strings of {@code minLength} to {@code maxLength} characters, each drawn from {@code chars}. */
  static Gen<String> strings(Gen<Character> chars, int minLength, int maxLength) {
    return lists().of(chars).ofSizeBetween(minLength, maxLength).map(TextGenerators::join);
  }

  /** Strings of up to {@link Theories#DEFAULT_MAX_SIZE} {@link #textChar() text characters}. */
  static Gen<String> strings() {
    return strings(textChar(), 0, Theories.DEFAULT_MAX_SIZE);
  }

  private static String join(List<Character> chars) {
    StringBuilder sb = new StringBuilder(chars.size());
    for (char c : chars) {
      sb.append(c);
    }
    return sb.toString();
  }
}
