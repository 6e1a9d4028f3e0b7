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
   * backslashes as {@code \\}, and cuts the result at {@code max} characters, appending
   * {@code …} when cut.
   */
  public static String escape(String text, int max) {
    StringBuilder sb = new StringBuilder(Math.min(text.length(), max) + 8);
    for (int i = 0; i < text.length(); i++) {
      if (sb.length() >= max) {
        return sb.append('…').toString();
      }
      char c = text.charAt(i);
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
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    return sb.toString();
  }
}
