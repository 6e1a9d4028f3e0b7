package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.AnswerValues.norm;
import static dev.cotenant.gateway.probe.AnswerValues.sameValue;
import static dev.cotenant.gateway.probe.DiffRendering.charExcerpt;
import static dev.cotenant.gateway.probe.DiffRendering.elements;
import static dev.cotenant.gateway.probe.DiffRendering.member;
import static dev.cotenant.gateway.probe.DiffRendering.quote;
import static dev.cotenant.gateway.probe.DiffRendering.render;
import static dev.cotenant.gateway.probe.TokenAlignment.TOO_LONG;
import static dev.cotenant.gateway.probe.TokenAlignment.carryToLowerDigits;
import static dev.cotenant.gateway.probe.TokenAlignment.keepWholeWords;
import static dev.cotenant.gateway.probe.TokenAlignment.lcs;
import static dev.cotenant.gateway.probe.TokenAlignment.table;

import dev.cotenant.api.Json;
import dev.cotenant.gateway.probe.AnswerValues.Kind;
import dev.cotenant.gateway.probe.TokenAlignment.Pattern;
import dev.cotenant.gateway.probe.TokenAlignment.Text;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Compares one tool's answer on a backend shared with another caller ({@code shared}) with its
 * answers, to the same arguments, on a dedicated backend run before it ({@code before}) and on
 * one run after it ({@code after}). A leak between callers shows as a shared answer that differs
 * from the dedicated ones; what differs between {@code before} and {@code after} themselves is
 * volatile (clocks, random ids, process ids, temporary paths) and is ignored, but only that.
 * Because the shared run lies between the two dedicated runs in time, a value that is equal in
 * {@code before} and {@code after} is required to be equal in {@code shared} too.
 *
 * <p>Values are plain JSON: {@link Map} (an object; its keys are compared as strings, their
 * order is ignored), {@link List}, {@link String}, {@link Number} (compared numerically, so
 * {@code 1} and {@code 1.0} are equal), {@link Boolean}, and {@link Json#NULL}; a Java {@code
 * null} is taken for {@link Json#NULL}. Any other object is a leaf compared with {@code equals}.
 * Values must be trees (no cycles). The rules, from the root down:
 *
 * <ul>
 *   <li>A value whose JSON type differs between {@code before} and {@code after} is volatile. A
 *       value whose type is the same in both must have that type in {@code shared}.
 *   <li>Objects: a key in both {@code before} and {@code after} must be in {@code shared}, and
 *       its values are compared by these rules; a key in only one of them is volatile (its
 *       presence and its value); a key only in {@code shared} is a difference.
 *   <li>Arrays: when {@code before} and {@code after} have the same length, {@code shared} must
 *       have it too (else one difference at the array, {@code length N} against {@code length
 *       M}), and the elements are compared index by index over the common length; when they
 *       differ in length, the whole array is volatile.
 *   <li>Numbers, booleans, null: equal in both → {@code shared} must be equal; else volatile.
 *   <li>Strings are compared token by token. A token is a maximal run of letters (with the
 *       combining marks among them), a maximal run of digits, a maximal run of whitespace, or a
 *       single other character. The tokens of {@code before} and {@code after} are aligned by a
 *       longest common subsequence; a <em>word</em> (a maximal run of letter and digit tokens
 *       with nothing between them, such as {@code ab12} or {@code 3f2a9c1e}) is fixed only when
 *       it appears whole and unchanged, aligned, in both, so a random id is one volatile unit
 *       rather than a few coincidentally equal letters. Each gap between fixed tokens where
 *       {@code before} or {@code after} has other tokens is a volatile run. {@code shared} must
 *       then read as {@code before}'s fixed tokens, in order and exactly, with each volatile run
 *       replaced by any sequence of tokens (the empty one included) that holds no whitespace
 *       unless the run held whitespace in {@code before} or {@code after}; so a volatile run never
 *       swallows whitespace-separated words. The match is a dynamic program, not a regular
 *       expression, so it cannot backtrack catastrophically. A mismatch is one difference per
 *       string, at the first fixed token past the furthest point to which {@code shared} matches.
 *       A random value that happens to be equal in both dedicated answers cannot be told from a
 *       fixed one, and must be equal in {@code shared} too.
 * </ul>
 *
 * <p>Bounds. A container nested {@value #MAX_DEPTH} levels deep is compared whole: equal in
 * {@code before} and {@code after} (by the same rules as its leaves) → {@code shared} must be
 * equal; else the whole container is volatile. The same holds for a string of more than {@value
 * #MAX_TEXT_CHARS} characters, and for a string whose alignment or match would take a table of
 * more than {@value #MAX_CELLS_PER_TEXT} cells (4,000 × 4,000 tokens, once the tokens that must
 * match at the start and at the end are set aside) or more than the {@value #MAX_CELLS} cells left
 * to the whole comparison; but a shared string whose closing fixed tokens are already seen not to
 * match is reported at that mismatch. All other work is linear in the size of the answers. At most
 * {@value #MAX_LISTED} differences and {@value #MAX_LISTED} volatile parts are listed; the rest are
 * counted.
 *
 * <p>This class walks the values; {@link TokenAlignment} aligns and matches strings,
 * {@link AnswerValues} says what a value is and when two are equal, and {@link DiffRendering}
 * writes paths and excerpts for the report.
 *
 * <p>Stateless and thread-safe; {@link #compare} is a pure function of its arguments, which it
 * only reads.
 */
final class AnswerDiff {
  /** The deepest a container is compared element by element; deeper ones are compared whole. */
  static final int MAX_DEPTH = 64;

  /** The longest string compared token by token; longer ones are compared whole. */
  static final int MAX_TEXT_CHARS = 1_000_000;

  /** The largest table one string's alignment or match may take. */
  static final long MAX_CELLS_PER_TEXT = 16_000_000L;

  /** The table cells all the strings of one comparison may take together. */
  static final long MAX_CELLS = 64_000_000L;

  /** How many differences, and how many volatile parts, a comparison lists. */
  static final int MAX_LISTED = 50;

  /** The bound on an expected or actual excerpt of a difference, in characters. */
  static final int EXCERPT = 120;

  /** The bound on each side of a volatile part, in characters. */
  static final int PART_EXCERPT = 40;

  /** The context shown on each side of a differing token, in characters of whole tokens. */
  static final int CONTEXT = 16;

  /** Shown for a key that an answer does not have. */
  static final String ABSENT = "(absent)";

  private AnswerDiff() {}

  /**
   * One part of the shared answer that differs from the dedicated answers and is not volatile.
   *
   * @param path where, from the root: {@code $}, {@code $.result.content[0].text}, {@code
   *     $["odd key"]}
   * @param position within a string, which token: {@code token 9 of 9} (counted in {@code
   *     before}'s tokens, from 1), {@code after token 9 of 9} when {@code shared} goes on past
   *     {@code before}'s end, {@code empty text} when {@code before} is empty; {@code char 5 of
   *     2000000, over 1000000 characters} for a string compared whole; {@code nested 64 levels
   *     deep, compared whole} for a container compared whole; empty when the value at {@code
   *     path} differs as a whole
   * @param expected what the dedicated answers hold there: a JSON excerpt, {@value #ABSENT}, or
   *     {@code length N}; within a string, the differing token with a little context ({@code …}
   *     marks a cut). Escaped for one line and bounded by {@value #EXCERPT} characters (plus
   *     the marks)
   * @param actual what {@code shared} holds there, in the same form
   */
  record Difference(String path, String position, String expected, String actual) {
    /** Checks that no part is {@code null}. */
    Difference {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(position, "position");
      Objects.requireNonNull(expected, "expected");
      Objects.requireNonNull(actual, "actual");
    }

    /** {@code path (position): expected E, got A}, on one line. */
    @Override
    public String toString() {
      return path + (position.isEmpty() ? "" : " (" + position + ")") + ": expected " + expected + ", got " + actual;
    }
  }

  /**
   * The result of one comparison.
   *
   * @param differences the first {@value #MAX_LISTED} differences, depth first in the order of
   *     {@code before}'s keys and elements, an object's keys found only in {@code shared} last
   * @param unlistedDifferences how many more there are
   * @param volatileParts where {@code before} and {@code after} differ, one line each in the form
   *     {@code path: before → after} or {@code path (position): before → after}, e.g. {@code
   *     $.result.content[0].text (token 5 of 9): "07" → "09"}, {@code $.id: (absent) → 3}, {@code
   *     $.items: 2 elements → 3 elements}; at most {@value #MAX_LISTED}, followed by {@code … and N
   *     more} when there are more. Positions are those of {@link Difference#position()}, plus
   *     {@code tokens 5-7 of 9}, {@code before token 1 of 9}, {@code between tokens 4 and 5 of 9}
   *     and {@code after token 9 of 9} for text {@code after} holds where {@code before} holds none,
   *     and {@code whole text, too long to align}, {@code whole text, too long to match} or {@code
   *     whole text, over 1000000 characters} for a string taken as volatile whole
   */
  record Comparison(
      List<Difference> differences, int unlistedDifferences, List<String> volatileParts, List<Place> volatilePlaces) {
    /** Copies the lists. */
    Comparison {
      differences = List.copyOf(differences);
      volatileParts = List.copyOf(volatileParts);
      volatilePlaces = List.copyOf(volatilePlaces);
    }

    /** True when the shared answer differs from the dedicated ones nowhere but where they are volatile. */
    boolean same() {
      return differences.isEmpty();
    }
  }

  /**
   * Compares {@code shared} with {@code before} and {@code after}, by the rules of this class.
   *
   * @param before the answer on a dedicated backend, before the shared run
   * @param after the answer on a dedicated backend, after the shared run
   * @param shared the answer on the backend shared with another caller
   */
  static Comparison compare(@Nullable Object before, @Nullable Object after, @Nullable Object shared) {
    Walk walk = new Walk();
    walk.value("$", 0, norm(before), norm(after), norm(shared));
    return walk.result();
  }

  /** The most volatile places a comparison keeps (each listed part is one; unlisted ones too). */
  static final int MAX_PLACES = 4_096;

  /**
   * Where {@code before} and {@code after} differ, as a place another comparison's difference can
   * be looked up in: a value as a whole ({@code from} = {@code to} = -1; it covers everything
   * below {@code path}), or {@code before}'s tokens {@code from} (inclusive, from 0) to {@code to}
   * (exclusive) of the text at {@code path}; {@code from} = {@code to} for text only {@code after}
   * holds between two tokens.
   */
  record Place(String path, int from, int to) {
    /** A value volatile as a whole. */
    static Place whole(String path) {
      return new Place(path, -1, -1);
    }

    /**
     * True when a difference at {@code path}, at 1-based token {@code token} of its text (0 when
     * it names no token), lies in this place.
     */
    boolean covers(String path, int token) {
      if (from < 0) {
        return path.equals(this.path) || path.startsWith(this.path + ".") || path.startsWith(this.path + "[");
      }
      if (!path.equals(this.path)) {
        return false;
      }
      if (token <= 0) {
        return true;
      }
      return to > from ? from < token && token <= to : token == from || token == from + 1;
    }
  }

  // ---- the walk -------------------------------------------------------------------------------

  /** The state of one comparison. Confined to the call of {@link #compare}. */
  private static final class Walk {
    private final List<Difference> differences = new ArrayList<>();
    private int unlistedDifferences;
    private final List<String> parts = new ArrayList<>();
    private final List<Place> places = new ArrayList<>();
    private int unlistedParts;
    private long cells = MAX_CELLS;

    Comparison result() {
      List<String> listed = new ArrayList<>(parts);
      if (unlistedParts > 0) {
        listed.add("… and " + unlistedParts + " more");
      }
      return new Comparison(differences, unlistedDifferences, listed, places);
    }

    void value(String path, int depth, Object b, Object a, Object s) {
      Kind kind = Kind.of(b);
      if (Kind.of(a) != kind) {
        volatileAt(Place.whole(path));
        if (listingParts()) {
          part(path, "", render(b, PART_EXCERPT), render(a, PART_EXCERPT));
        }
        return;
      }
      if (Kind.of(s) != kind) {
        if (listingDifferences()) {
          difference(path, "", render(b, EXCERPT), render(s, EXCERPT));
        }
        return;
      }
      switch (kind) {
        case OBJECT:
        case ARRAY:
          if (depth >= MAX_DEPTH) {
            whole(path, "nested " + MAX_DEPTH + " levels deep, compared whole", b, a, s);
          } else if (kind == Kind.OBJECT) {
            object(path, depth, (Map<?, ?>) b, (Map<?, ?>) a, (Map<?, ?>) s);
          } else {
            array(path, depth, (List<?>) b, (List<?>) a, (List<?>) s);
          }
          break;
        case STRING:
          string(path, (String) b, (String) a, (String) s);
          break;
        default:
          whole(path, "", b, a, s);
      }
    }

    private void object(String path, int depth, Map<?, ?> b, Map<?, ?> a, Map<?, ?> s) {
      for (Map.Entry<?, ?> e : b.entrySet()) {
        Object key = e.getKey();
        Object vb = norm(e.getValue());
        if (!a.containsKey(key)) {
          volatileAt(Place.whole(path + member(key)));
          if (listingParts()) {
            part(path + member(key), "", render(vb, PART_EXCERPT), ABSENT);
          }
        } else if (!s.containsKey(key)) {
          if (listingDifferences()) {
            difference(path + member(key), "", render(vb, EXCERPT), ABSENT);
          }
        } else {
          value(path + member(key), depth + 1, vb, norm(a.get(key)), norm(s.get(key)));
        }
      }
      for (Map.Entry<?, ?> e : a.entrySet()) {
        if (!b.containsKey(e.getKey())) {
          volatileAt(Place.whole(path + member(e.getKey())));
          if (listingParts()) {
            part(path + member(e.getKey()), "", ABSENT, render(norm(e.getValue()), PART_EXCERPT));
          }
        }
      }
      for (Map.Entry<?, ?> e : s.entrySet()) {
        if (!b.containsKey(e.getKey()) && !a.containsKey(e.getKey()) && listingDifferences()) {
          difference(path + member(e.getKey()), "", ABSENT, render(norm(e.getValue()), EXCERPT));
        }
      }
    }

    private void array(String path, int depth, List<?> b, List<?> a, List<?> s) {
      if (b.size() != a.size()) {
        volatileAt(Place.whole(path));
        if (listingParts()) {
          part(path, "", elements(b.size()), elements(a.size()));
        }
        return;
      }
      if (s.size() != b.size() && listingDifferences()) {
        difference(path, "", "length " + b.size(), "length " + s.size());
      }
      Iterator<?> ib = b.iterator();
      Iterator<?> ia = a.iterator();
      Iterator<?> is = s.iterator();
      for (int i = 0; ib.hasNext() && is.hasNext(); i++) {
        value(path + "[" + i + "]", depth + 1, norm(ib.next()), norm(ia.next()), norm(is.next()));
      }
    }

    /** Compares values as wholes: equal in both dedicated answers → equal in the shared one. */
    private void whole(String path, String position, Object b, Object a, Object s) {
      if (!sameValue(b, a)) {
        volatileAt(Place.whole(path));
        if (listingParts()) {
          part(path, position, render(b, PART_EXCERPT), render(a, PART_EXCERPT));
        }
      } else if (!sameValue(b, s) && listingDifferences()) {
        difference(path, position, render(b, EXCERPT), render(s, EXCERPT));
      }
    }

    private void string(String path, String b, String a, String s) {
      if (b.length() > MAX_TEXT_CHARS || a.length() > MAX_TEXT_CHARS || s.length() > MAX_TEXT_CHARS) {
        wholeText(path, "over " + MAX_TEXT_CHARS + " characters", b, a, s);
        return;
      }
      if (b.equals(a) && b.equals(s)) {
        return;
      }
      Text tb = Text.of(b);
      Pattern pattern;
      if (b.equals(a)) {
        pattern = Pattern.fixed(tb);
      } else {
        Text ta = Text.of(a);
        int[] partner = align(tb, ta);
        if (partner == null) {
          wholeText(path, "too long to align", b, a, s);
          return;
        }
        pattern = Pattern.of(tb, ta, partner);
      }
      Text ts = Text.of(s);
      int @Nullable [] failure = match(pattern, tb, ts);
      if (failure == TOO_LONG) {
        wholeText(path, "too long to match", b, a, s);
        return;
      }
      boolean listing = true;
      for (Pattern.Run run : pattern.runs) {
        volatileAt(new Place(path, run.from(), run.to()));
        listing = listing && listingParts();
        if (listing) {
          part(path, run.position(tb.count), quote(run.before()), quote(run.after()));
        }
      }
      if (failure != null && listingDifferences()) {
        int p = failure[0];
        int at = p < pattern.size() ? pattern.token[p] : tb.count;
        String position = p < pattern.size()
            ? "token " + (at + 1) + " of " + tb.count
            : tb.count == 0 ? "empty text" : "after token " + tb.count + " of " + tb.count;
        difference(path, position, tb.excerpt(at), ts.excerpt(failure[1]));
      }
    }

    /** Compares strings as wholes, showing a differing shared string around its first differing character. */
    private void wholeText(String path, String why, String b, String a, String s) {
      if (!b.equals(a)) {
        volatileAt(Place.whole(path));
        if (listingParts()) {
          part(path, "whole text, " + why, quote(b), quote(a));
        }
      } else if (!b.equals(s) && listingDifferences()) {
        int at = 0;
        int end = Math.min(b.length(), s.length());
        while (at < end && b.charAt(at) == s.charAt(at)) {
          at++;
        }
        difference(path, "char " + (at + 1) + " of " + b.length() + ", " + why, charExcerpt(b, at), charExcerpt(s, at));
      }
    }

    /**
     * Aligns {@code before}'s tokens with {@code after}'s: for each token of {@code before}, the
     * index of the token of {@code after} it stays fixed as, or -1. Null when the alignment is
     * over the bounds.
     */
    private int @Nullable [] align(Text b, Text a) {
      int nb = b.count;
      int na = a.count;
      int[] partner = new int[nb];
      Arrays.fill(partner, -1);
      int pre = 0;
      while (pre < nb && pre < na && b.same(pre, a, pre)) {
        partner[pre] = pre;
        pre++;
      }
      int suf = 0;
      while (suf < nb - pre && suf < na - pre && b.same(nb - 1 - suf, a, na - 1 - suf)) {
        partner[nb - 1 - suf] = na - 1 - suf;
        suf++;
      }
      int n = nb - pre - suf;
      int m = na - pre - suf;
      if (n > 0 && m > 0) {
        if (!spend((long) n * m)) {
          return null;
        }
        lcs(b, a, pre, n, m, partner);
      }
      keepWholeWords(b, a, partner);
      carryToLowerDigits(b, partner);
      return partner;
    }

    /** Takes {@code size} cells from the budget, or false when that is over a bound. */
    private boolean spend(long size) {
      if (size > MAX_CELLS_PER_TEXT || size > cells) {
        return false;
      }
      cells -= size;
      return true;
    }

    /**
     * Matches {@code shared} against the pattern. Null on a match; {@link #TOO_LONG} when the
     * match is over the bounds; else the pattern element and the shared token at the furthest
     * point matched, the element being fixed (or the end of the pattern, when {@code shared}
     * goes on past it). When the fixed tokens at the start and at the end match, only the
     * rest is tabled; on a mismatch the table is run again over everything past the start, to
     * find the first point that does not match, or, when that is over the bounds, the mismatch
     * found is reported.
     */
    private int @Nullable [] match(Pattern pattern, Text b, Text s) {
      int size = pattern.size();
      int p = 0;
      int t = 0;
      // Up to the first volatile run, every fixed token is forced.
      while (p < size && pattern.token[p] >= 0 && t < s.count && b.same(pattern.token[p], s, t)) {
        p++;
        t++;
      }
      if (p == size) {
        return t == s.count ? null : new int[] {p, t};
      }
      if (pattern.token[p] >= 0) {
        return new int[] {p, t};
      }
      // So is every fixed token after the last volatile run.
      int q = size;
      int u = s.count;
      while (q > p && pattern.token[q - 1] >= 0 && u > t && b.same(pattern.token[q - 1], s, u - 1)) {
        q--;
        u--;
      }
      int @Nullable [] failure;
      if (pattern.token[q - 1] < 0) {
        if (!spend((long) (q - p) * (u - t + 1))) {
          return TOO_LONG;
        }
        failure = table(pattern, b, s, p, q, t, u);
        if (failure == null || q == size) {
          return failure;
        }
      } else {
        // The fixed tokens at the end do not match the end of the shared string.
        failure = new int[] {q - 1, u > t ? u - 1 : t};
      }
      // The table over all the rest finds the first point that does not match, within the bounds.
      if (!spend((long) (size - p) * (s.count - t + 1))) {
        return failure;
      }
      return table(pattern, b, s, p, size, t, s.count);
    }

    private boolean listingDifferences() {
      if (differences.size() < MAX_LISTED) {
        return true;
      }
      unlistedDifferences++;
      return false;
    }

    private void volatileAt(Place place) {
      if (places.size() < MAX_PLACES) {
        places.add(place);
      }
    }

    private boolean listingParts() {
      if (parts.size() < MAX_LISTED) {
        return true;
      }
      unlistedParts++;
      return false;
    }

    private void difference(String path, String position, String expected, String actual) {
      differences.add(new Difference(path, position, expected, actual));
    }

    private void part(String path, String position, String before, String after) {
      parts.add(path + (position.isEmpty() ? "" : " (" + position + ")") + ": " + before + " → " + after);
    }
  }
}
