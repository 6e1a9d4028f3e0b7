package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.impl.Constraint;

/**
 * Properties of {@link AnswerDiff} over random JSON answers. Each property is a static method
 * taking the theory to run and the comparison it checks, so {@link AnswerDiffPropertyBiteTest}
 * can show it fails on a broken one. Every generator draws from QuickTheories' randomness source,
 * so a falsifying example shrinks; a run draws a fresh seed, and {@code -DQT_SEED=<seed>} replays
 * a reported one.
 */
class AnswerDiffPropertyTest {
  /** Examples per property. */
  static final int EXAMPLES = 1000;

  /** What a property asks of a comparison: whether {@code shared} is the same as the dedicated answers. */
  @FunctionalInterface
  interface Same {
    boolean same(Object before, Object after, Object shared);
  }

  /** The comparison under test. */
  static final Same COMPARE = (b, a, s) -> AnswerDiff.compare(b, a, s).same();

  static QuickTheory qt() {
    return QuickTheory.qt().withExamples(EXAMPLES);
  }

  // ---- properties -------------------------------------------------------------------------------

  @Test
  void anAnswerGivenThreeTimesIsTheSame() {
    anAnswerGivenThreeTimesIsTheSame(qt(), COMPARE);
  }

  static void anAnswerGivenThreeTimesIsTheSame(QuickTheory qt, Same same) {
    qt.forAll(json()).checkAssert(v -> assertTrue(same.same(v, copy(v), copy(v))));
  }

  @Test
  void aChangeToAStableAnswerIsADifference() {
    aChangeToAStableAnswerIsADifference(qt(), COMPARE);
  }

  static void aChangeToAStableAnswerIsADifference(QuickTheory qt, Same same) {
    qt.forAll(changedOnce()).checkAssert(p -> assertFalse(same.same(p.first, copy(p.first), p.second)));
  }

  @Test
  void aDedicatedAnswerIsTheSameAsTheDedicatedAnswers() {
    aDedicatedAnswerIsTheSameAsTheDedicatedAnswers(qt(), COMPARE);
  }

  static void aDedicatedAnswerIsTheSameAsTheDedicatedAnswers(QuickTheory qt, Same same) {
    qt.forAll(related()).checkAssert(p -> {
      assertTrue(same.same(p.first, p.second, copy(p.first)), "the shared answer is the one before");
      assertTrue(same.same(p.first, p.second, copy(p.second)), "the shared answer is the one after");
    });
  }

  @Test
  void aDedicatedTextIsTheSameAsTheDedicatedTexts() {
    aDedicatedTextIsTheSameAsTheDedicatedTexts(qt(), COMPARE);
  }

  /** As above, over longer texts alone, which reach the alignment and the match table more often. */
  static void aDedicatedTextIsTheSameAsTheDedicatedTexts(QuickTheory qt, Same same) {
    qt.forAll(relatedTexts()).checkAssert(p -> {
      assertTrue(same.same(p.first, p.second, p.first), "the shared text is the one before");
      assertTrue(same.same(p.first, p.second, p.second), "the shared text is the one after");
    });
  }

  @Test
  void aVolatileWordMayBeAnyWord() {
    aVolatileWordMayBeAnyWord(qt(), COMPARE);
  }

  /** {@code P X S} against {@code P Y S}, for words {@code X ≠ Y}: any word may stand in the shared text. */
  static void aVolatileWordMayBeAnyWord(QuickTheory qt, Same same) {
    qt.forAll(volatileWord())
        .checkAssert(w -> assertTrue(same.same(w.text(w.before), w.text(w.after), w.text(w.shared))));
  }

  @Test
  void aVolatileWordDoesNotHideAnotherWord() {
    aVolatileWordDoesNotHideAnotherWord(qt(), COMPARE);
  }

  /** As above, with a word more after the end of the shared text: a difference. */
  static void aVolatileWordDoesNotHideAnotherWord(QuickTheory qt, Same same) {
    qt.forAll(volatileWord())
        .checkAssert(w -> assertFalse(same.same(w.text(w.before), w.text(w.after), w.text(w.shared) + " z")));
  }

  // ---- generators -------------------------------------------------------------------------------

  /** Two values, shown together when a property fails. */
  record Pair(Object first, Object second) {}

  /** A text {@code prefix word suffix} with three words for its middle. */
  record VolatileWord(String prefix, String before, String after, String shared, String suffix) {
    String text(String word) {
      return prefix + word + suffix;
    }
  }

  /** Letters, digits, whitespace, punctuation and a combining mark: every kind of token. */
  private static final String[] ALPHABET = {"a", "b", "Z", "é", "1", "2", "0", " ", "\n", ":", "-", "=", ".", "e\u0301"};

  private static final String[] WORD_CHARS = {"a", "b", "Z", "é", "1", "2", "0"};

  private static final String[] KEYS = {"a", "b", "text", "id", "odd key"};

  private static int draw(RandomnessSource in, int min, int max) {
    return (int) in.next(Constraint.between(min, max));
  }

  private static String text(RandomnessSource in, String[] alphabet, int min, int max) {
    StringBuilder sb = new StringBuilder();
    int n = draw(in, min, max);
    for (int i = 0; i < n; i++) {
      sb.append(alphabet[draw(in, 0, alphabet.length - 1)]);
    }
    return sb.toString();
  }

  private static Object number(RandomnessSource in) {
    int n = draw(in, 0, 20);
    switch (draw(in, 0, 3)) {
      case 0:
        return n;
      case 1:
        return (long) n;
      case 2:
        return n + 0.5;
      default:
        return new BigDecimal(n).setScale(2);
    }
  }

  /** A JSON value at most four levels deep. */
  static Gen<Object> json() {
    return in -> value(in, 0);
  }

  private static Object value(RandomnessSource in, int depth) {
    switch (draw(in, 0, depth >= 3 ? 4 : 6)) {
      case 0:
      case 1:
        return text(in, ALPHABET, 0, 10);
      case 2:
        return number(in);
      case 3:
        return draw(in, 0, 1) == 1;
      case 4:
        return Json.NULL;
      case 5: {
        Map<String, Object> m = new LinkedHashMap<>();
        int n = draw(in, 0, 3);
        for (int i = 0; i < n; i++) {
          m.put(KEYS[draw(in, 0, KEYS.length - 1)], value(in, depth + 1));
        }
        return m;
      }
      default: {
        List<Object> l = new ArrayList<>();
        int n = draw(in, 0, 3);
        for (int i = 0; i < n; i++) {
          l.add(value(in, depth + 1));
        }
        return l;
      }
    }
  }

  /** A deep copy, so that no comparison sees the same object twice. */
  static Object copy(Object v) {
    if (v instanceof Map<?, ?>) {
      Map<String, Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put((String) k, copy(x)));
      return m;
    }
    if (v instanceof List<?>) {
      List<Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(copy(x)));
      return l;
    }
    if (v instanceof String) {
      return new String((String) v);
    }
    return v;
  }

  /** A value, and a copy of it with one node changed (a leaf's value, a key, an element). */
  static Gen<Pair> changedOnce() {
    return in -> {
      Object v = value(in, 0);
      int[] target = {draw(in, 0, nodes(v) - 1)};
      return new Pair(v, changeOne(v, target, in));
    };
  }

  private static int nodes(Object v) {
    int n = 1;
    if (v instanceof Map<?, ?>) {
      for (Object x : ((Map<?, ?>) v).values()) {
        n += nodes(x);
      }
    } else if (v instanceof List<?>) {
      for (Object x : (List<?>) v) {
        n += nodes(x);
      }
    }
    return n;
  }

  /** A copy of {@code v} with node {@code target[0]} (counted depth first) changed. */
  private static Object changeOne(Object v, int[] target, RandomnessSource in) {
    if (target[0]-- == 0) {
      return changed(v, in);
    }
    if (v instanceof Map<?, ?>) {
      Map<String, Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put((String) k, changeOne(x, target, in)));
      return m;
    }
    if (v instanceof List<?>) {
      List<Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(changeOne(x, target, in)));
      return l;
    }
    return v;
  }

  /** A value that differs from {@code v}, by the rules of {@link AnswerDiff}, when nothing is volatile. */
  private static Object changed(Object v, RandomnessSource in) {
    if (v instanceof Map<?, ?>) {
      Map<String, Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put((String) k, copy(x)));
      if (m.isEmpty() || draw(in, 0, 1) == 0) {
        m.put("added", value(in, 3));
      } else {
        m.remove(m.keySet().iterator().next());
      }
      return m;
    }
    if (v instanceof List<?>) {
      List<Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(copy(x)));
      if (l.isEmpty() || draw(in, 0, 1) == 0) {
        l.add(draw(in, 0, l.size()), value(in, 3));
      } else {
        l.remove(draw(in, 0, l.size() - 1));
      }
      return l;
    }
    if (v instanceof String) {
      String s = (String) v;
      String c = ALPHABET[draw(in, 0, ALPHABET.length - 1)];
      int at = draw(in, 0, s.length());
      if (s.isEmpty() || draw(in, 0, 1) == 0) {
        return s.substring(0, at) + c + s.substring(at);
      }
      at = Math.min(at, s.length() - 1);
      return s.substring(0, at) + s.substring(at + 1);
    }
    if (v instanceof Number) {
      return new BigDecimal(v.toString()).add(BigDecimal.ONE);
    }
    if (v instanceof Boolean) {
      return !(Boolean) v;
    }
    return draw(in, 0, 1) == 0 ? 0 : "null";
  }

  /** A value and another made from it by a few random edits, at any depth, of any kind. */
  static Gen<Pair> related() {
    return in -> {
      Object v = value(in, 0);
      return new Pair(v, edited(v, in, 0));
    };
  }

  private static Object edited(Object v, RandomnessSource in, int depth) {
    switch (draw(in, 0, 5)) {
      case 0:
        return copy(v);
      case 1:
        return value(in, depth);
      default:
        break;
    }
    if (v instanceof Map<?, ?>) {
      Map<String, Object> m = new LinkedHashMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> m.put((String) k, edited(x, in, depth + 1)));
      if (draw(in, 0, 2) == 0) {
        m.put(KEYS[draw(in, 0, KEYS.length - 1)], value(in, depth + 1));
      }
      return m;
    }
    if (v instanceof List<?>) {
      List<Object> l = new ArrayList<>();
      ((List<?>) v).forEach(x -> l.add(edited(x, in, depth + 1)));
      if (draw(in, 0, 2) == 0) {
        l.add(draw(in, 0, l.size()), value(in, depth + 1));
      }
      return l;
    }
    if (v instanceof String) {
      return editedText((String) v, in);
    }
    return changed(v, in);
  }

  private static String editedText(String s, RandomnessSource in) {
    StringBuilder sb = new StringBuilder(s);
    int edits = draw(in, 1, 4);
    for (int i = 0; i < edits; i++) {
      int at = draw(in, 0, sb.length());
      String c = ALPHABET[draw(in, 0, ALPHABET.length - 1)];
      if (sb.length() == 0 || draw(in, 0, 1) == 0) {
        sb.insert(at, c);
      } else {
        at = Math.min(at, sb.length() - 1);
        sb.replace(at, at + 1, c);
      }
    }
    return sb.toString();
  }

  /** A text of up to 60 characters and another made from it by a few edits. */
  static Gen<Pair> relatedTexts() {
    return in -> {
      String s = text(in, ALPHABET, 0, 60);
      return new Pair(s, editedText(s, in));
    };
  }

  /** Any prefix and suffix around three words, of which the first two differ. */
  static Gen<VolatileWord> volatileWord() {
    Gen<VolatileWord> all = in -> new VolatileWord(
        text(in, ALPHABET, 0, 12),
        text(in, WORD_CHARS, 1, 6),
        text(in, WORD_CHARS, 1, 6),
        text(in, WORD_CHARS, 1, 6),
        text(in, ALPHABET, 0, 12));
    return all.assuming(w -> !w.before.equals(w.after));
  }
}
