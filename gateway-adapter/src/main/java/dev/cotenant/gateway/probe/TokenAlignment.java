package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.AnswerDiff.CONTEXT;
import static dev.cotenant.gateway.probe.AnswerDiff.EXCERPT;

import dev.cotenant.api.LogSafe;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How {@link AnswerDiff} compares two strings token by token: a string cut into tokens
 * ({@link Text}), the longest common subsequence of two dedicated answers' tokens (with whole
 * words kept or let go together), the pattern of fixed tokens and volatile runs it leaves
 * ({@link Pattern}), and the dynamic program that matches a shared answer against it, within
 * the bounds of its table. Pure, static and thread-safe.
 */
final class TokenAlignment {
  private TokenAlignment() {}

  /** Marks a match over the bounds. */
  static final int[] TOO_LONG = new int[0];

  /**
   * The longest common subsequence of {@code b}'s and {@code a}'s tokens {@code pre} to {@code
   * pre + n} and {@code pre + m}, into {@code partner}. One bit per cell records whether the
   * best subsequence without the cell's {@code a} token is as long as without its {@code b}
   * token; equal tokens are always taken.
   */
  static void lcs(Text b, Text a, int pre, int n, int m, int[] partner) {
    long[] up = new long[(int) (((long) n * m + 63) >>> 6)];
    int[] prev = new int[m + 1];
    int[] cur = new int[m + 1];
    for (int i = 1; i <= n; i++) {
      cur[0] = 0;
      for (int j = 1; j <= m; j++) {
        if (b.same(pre + i - 1, a, pre + j - 1)) {
          cur[j] = prev[j - 1] + 1;
        } else if (prev[j] >= cur[j - 1]) {
          cur[j] = prev[j];
          long bit = (long) (i - 1) * m + (j - 1);
          up[(int) (bit >>> 6)] |= 1L << (bit & 63);
        } else {
          cur[j] = cur[j - 1];
        }
      }
      int[] swap = prev;
      prev = cur;
      cur = swap;
    }
    int i = n;
    int j = m;
    while (i > 0 && j > 0) {
      if (b.same(pre + i - 1, a, pre + j - 1)) {
        partner[pre + i - 1] = pre + j - 1;
        i--;
        j--;
      } else {
        long bit = (long) (i - 1) * m + (j - 1);
        if ((up[(int) (bit >>> 6)] & (1L << (bit & 63))) != 0) {
          i--;
        } else {
          j--;
        }
      }
    }
  }

  /**
   * Unfixes every word of {@code b} that is not aligned whole, token for token, with a whole word
   * of {@code a}. An unaligned word of {@code a} then holds no fixed token either: a word of
   * {@code b} aligned with part of it is not whole.
   */
  /**
   * A volatile number makes every LATER number of the same run volatile too: the run goes on
   * through punctuation and single letters (the {@code T} of an ISO instant) and ends at
   * whitespace or a longer word. A clock read twice can differ in its seconds and agree in its
   * milliseconds by chance ({@code 17:42:09.023}, {@code 17:42:11.023}); the shared run, read
   * between the two, then has other milliseconds, which are no leak. The time's big-endian
   * order is what makes this sound: a value that agrees in its leading parts lies between them.
   * A counter in the same text field after a space ({@code 12:01:07 calls=1}) is not carried.
   */
  static void carryToLowerDigits(Text b, int[] partner) {
    boolean carrying = false;
    for (int t = 0; t < b.count; t++) {
      byte k = b.kind[t];
      if (k == Text.SPACE || (k == Text.LETTERS && b.length(t) > 1)) {
        carrying = false;
      } else if (k == Text.DIGITS) {
        if (carrying) {
          partner[t] = -1;
        } else if (partner[t] < 0) {
          carrying = true;
        }
      }
    }
  }

  static void keepWholeWords(Text b, Text a, int[] partner) {
    int i = 0;
    while (i < b.count) {
      if (!b.word(i)) {
        i++;
        continue;
      }
      int end = i;
      while (end < b.count && b.word(end)) {
        end++;
      }
      boolean whole = partner[i] >= 0;
      for (int k = i + 1; whole && k < end; k++) {
        whole = partner[k] >= 0 && partner[k] == partner[k - 1] + 1;
      }
      if (whole) {
        int first = partner[i];
        int last = partner[end - 1];
        whole = (first == 0 || !a.word(first - 1)) && (last == a.count - 1 || !a.word(last + 1));
      }
      if (!whole) {
        Arrays.fill(partner, i, end, -1);
      }
      i = end;
    }
  }

  /**
   * The match table over pattern elements {@code p0} to {@code p1} and shared tokens {@code t0} to
   * {@code t1}, one row at a time: row {@code p} holds which shared prefixes the first {@code p}
   * elements can match.
   */
  static int @Nullable [] table(Pattern pattern, Text b, Text s, int p0, int p1, int t0, int t1) {
    int width = t1 - t0;
    boolean[] prev = new boolean[width + 1];
    boolean[] cur = new boolean[width + 1];
    prev[0] = true;
    for (int p = p0; p < p1; p++) {
      Arrays.fill(cur, false);
      boolean any = false;
      int token = pattern.token[p];
      if (token >= 0) {
        for (int c = 0; c < width; c++) {
          if (prev[c] && b.same(token, s, t0 + c)) {
            cur[c + 1] = true;
            any = true;
          }
        }
      } else {
        boolean spaces = pattern.spaces[p];
        for (int c = 0; c <= width; c++) {
          cur[c] = prev[c] || (c > 0 && cur[c - 1] && (spaces || !s.space(t0 + c - 1)));
          any |= cur[c];
        }
      }
      if (!any) {
        return new int[] {p, t0 + furthest(prev)};
      }
      boolean[] swap = prev;
      prev = cur;
      cur = swap;
    }
    return prev[width] ? null : new int[] {p1, t0 + furthest(prev)};
  }

  private static int furthest(boolean[] row) {
    for (int c = row.length - 1; c > 0; c--) {
      if (row[c]) {
        return c;
      }
    }
    return 0;
  }

  // ---- strings ----------------------------------------------------------------------------------

  /** A string cut into tokens. */
  static final class Text {
    static final byte LETTERS = 0;
    static final byte DIGITS = 1;
    static final byte SPACE = 2;
    static final byte OTHER = 3;

    final String text;
    final int count;
    /** Where each token starts; {@code start[count]} is the length. */
    final int[] start;
    final byte[] kind;
    final int[] hash;

    private Text(String text, int count, int[] start, byte[] kind, int[] hash) {
      this.text = text;
      this.count = count;
      this.start = start;
      this.kind = kind;
      this.hash = hash;
    }

    static Text of(String text) {
      int[] start = new int[16];
      byte[] kind = new byte[16];
      int count = 0;
      int i = 0;
      while (i < text.length()) {
        int cp = text.codePointAt(i);
        byte k = kindOf(cp);
        int j = i + Character.charCount(cp);
        if (k != OTHER) {
          while (j < text.length()) {
            int next = text.codePointAt(j);
            if (kindOf(next) != k) {
              break;
            }
            j += Character.charCount(next);
          }
        }
        if (count + 1 >= start.length) {
          start = Arrays.copyOf(start, start.length * 2);
          kind = Arrays.copyOf(kind, kind.length * 2);
        }
        start[count] = i;
        kind[count] = k;
        count++;
        i = j;
      }
      start[count] = text.length();
      int[] hash = new int[count];
      for (int t = 0; t < count; t++) {
        int h = 0;
        for (int c = start[t]; c < start[t + 1]; c++) {
          h = 31 * h + text.charAt(c);
        }
        hash[t] = h;
      }
      return new Text(text, count, start, kind, hash);
    }

    private static byte kindOf(int cp) {
      if (Character.isLetter(cp)) {
        return LETTERS;
      }
      if (Character.isDigit(cp)) {
        return DIGITS;
      }
      if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
        return SPACE;
      }
      int type = Character.getType(cp);
      if (type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK || type == Character.ENCLOSING_MARK) {
        return LETTERS;
      }
      return OTHER;
    }

    int length(int t) {
      return start[t + 1] - start[t];
    }

    String token(int from, int to) {
      return text.substring(start[from], start[to]);
    }

    boolean same(int t, Text other, int u) {
      return hash[t] == other.hash[u]
          && length(t) == other.length(u)
          && text.regionMatches(start[t], other.text, other.start[u], length(t));
    }

    boolean word(int t) {
      return kind[t] == LETTERS || kind[t] == DIGITS;
    }

    boolean space(int t) {
      return kind[t] == SPACE;
    }

    /**
     * Token {@code t} (or the end, at {@code count}) with up to {@value #CONTEXT} characters of
     * whole tokens on each side, {@code …} marking a cut: the end of a text whose last token is
     * longer than that is {@code …} alone, and only a text without tokens is {@code (empty text)}.
     */
    String excerpt(int t) {
      int from = t;
      int chars = 0;
      while (from > 0 && chars + length(from - 1) <= CONTEXT) {
        chars += length(--from);
      }
      int to = Math.min(t + 1, count);
      chars = 0;
      while (to < count && chars + length(to) <= CONTEXT) {
        chars += length(to++);
      }
      String raw = text.substring(start[from], Math.min(start[to], start[from] + EXCERPT + 1));
      if (count == 0) {
        return "(empty text)";
      }
      String shown = LogSafe.escape(raw, EXCERPT);
      return (from > 0 ? "…" : "") + shown + (to < count && !shown.endsWith("…") ? "…" : "");
    }
  }

  /**
   * What a shared string must read as: {@code before}'s fixed tokens, and its volatile runs, each
   * of which matches any tokens (without whitespace, unless the run held some).
   */
  static final class Pattern {
    /** Per element, the fixed token of {@code before} it stands for, or -1 for a volatile run. */
    final int[] token;
    /** Per element, whether a volatile run may match whitespace. */
    final boolean[] spaces;
    /** The volatile runs, in order. */
    final List<Run> runs;

    private Pattern(int[] token, boolean[] spaces, List<Run> runs) {
      this.token = token;
      this.spaces = spaces;
      this.runs = runs;
    }

    int size() {
      return token.length;
    }

    /** Every token of {@code b} fixed. */
    static Pattern fixed(Text b) {
      int[] token = new int[b.count];
      for (int i = 0; i < token.length; i++) {
        token[i] = i;
      }
      return new Pattern(token, new boolean[b.count], List.of());
    }

    /** {@code b}'s tokens with a partner in {@code a} fixed, and a volatile run at every gap. */
    static Pattern of(Text b, Text a, int[] partner) {
      int[] token = new int[2 * b.count + 1];
      boolean[] spaces = new boolean[token.length];
      List<Run> runs = new ArrayList<>();
      int size = 0;
      int gapB = 0;
      int gapA = 0;
      for (int i = 0; i <= b.count; i++) {
        int j = i < b.count ? partner[i] : a.count;
        if (i < b.count && j < 0) {
          continue;
        }
        if (gapB < i || gapA < j) {
          token[size] = -1;
          spaces[size] = hasSpace(b, gapB, i) || hasSpace(a, gapA, j);
          size++;
          runs.add(new Run(gapB, i, b.token(gapB, i), a.token(gapA, j)));
        }
        if (i < b.count) {
          token[size++] = i;
          gapB = i + 1;
          gapA = j + 1;
        }
      }
      return new Pattern(Arrays.copyOf(token, size), Arrays.copyOf(spaces, size), runs);
    }

    private static boolean hasSpace(Text t, int from, int to) {
      for (int k = from; k < to; k++) {
        if (t.space(k)) {
          return true;
        }
      }
      return false;
    }

    /** A volatile run: {@code before}'s tokens {@code from} to {@code to}, and the text of each side. */
    record Run(int from, int to, String before, String after) {
      String position(int count) {
        if (to - from == 1) {
          return "token " + to + " of " + count;
        }
        if (to > from) {
          return "tokens " + (from + 1) + "-" + to + " of " + count;
        }
        if (count == 0) {
          return "empty text";
        }
        if (from == 0) {
          return "before token 1 of " + count;
        }
        if (from == count) {
          return "after token " + count + " of " + count;
        }
        return "between tokens " + from + " and " + (from + 1) + " of " + count;
      }
    }
  }
}
