package dev.cotenant.api;

/**
 * Makes text a server or a file chose safe to put on one log line: control characters
 * (newline, ESC, ...) are escaped and the result is bounded in length.
 */
public final class LogSafe {
  /** The default bound on escaped output, in characters, before the ellipsis. */
  public static final int DEFAULT_MAX = 200;

  private LogSafe() {}

  /** Escapes {@code text} and bounds it to {@link #DEFAULT_MAX} characters. */
  public static String escape(String text) {
    return escape(text, DEFAULT_MAX);
  }

  /**
   * Escapes control characters as {@code \n}, {@code \r}, {@code \t} or {@code \}{@code uXXXX},
   * bidirectional controls and zero-width characters (which reorder or hide what a terminal
   * shows) and lone surrogates as {@code \}{@code uXXXX}, backslashes as {@code \\}, and cuts the result
   * so that at most {@code max} characters come before the {@code …} appended when cut. An
   * escape sequence or a surrogate pair is never split by the cut.
   */
  public static String escape(String text, int max) {
    StringBuilder sb = new StringBuilder(Math.min(text.length(), max) + 8);
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      int mark = sb.length();
      int consumed = 1;
      switch (c) {
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        default:
          if (Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1))) {
            sb.append(c).append(text.charAt(i + 1));
            consumed = 2;
          } else if (c < 0x20
              || c == 0x7f
              || (c >= 0x80 && c < 0xa0)
              || c == '\u2028'
              || c == '\u2029'
              || invisible(c)
              || Character.isSurrogate(c)) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
      if (sb.length() > max) {
        sb.setLength(mark);
        return sb.append('…').toString();
      }
      i += consumed;
    }
    return sb.toString();
  }

  /**
   * A bidirectional formatting character or a zero-width one: U+061C, U+200B to U+200F, U+202A to
   * U+202E, U+2060 to U+2069, U+FEFF.
   */
  private static boolean invisible(char c) {
    return c == '\u061c'
        || (c >= '\u200b' && c <= '\u200f')
        || (c >= '\u202a' && c <= '\u202e')
        || (c >= '\u2060' && c <= '\u2069')
        || c == '\ufeff';
  }
}
