package dev.cotenant.fleet.postgres;

/**
 * Names and identities as stored in {@code text} columns, which cannot hold NUL: the pre-flight
 * identity is NUL-joined, and a configured server name may carry any character. A backslash is
 * stored as two, NUL as a backslash and {@code 0}; everything else as is. Reading undoes it
 * exactly, so two different names never share a row.
 */
final class Text {
  private Text() {}

  /** The stored form of {@code s}. */
  static String store(String s) {
    if (s.indexOf('\\') < 0 && s.indexOf('\0') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        b.append("\\\\");
      } else if (c == '\0') {
        b.append("\\0");
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** The value whose stored form is {@code s}. */
  static String read(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        b.append(n == '0' ? '\0' : n);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
