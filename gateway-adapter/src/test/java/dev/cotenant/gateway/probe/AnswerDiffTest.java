package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Json;
import dev.cotenant.gateway.probe.AnswerDiff.Comparison;
import dev.cotenant.gateway.probe.AnswerDiff.Difference;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** What {@link AnswerDiff} calls a difference, what it calls volatile, and how it says so. */
class AnswerDiffTest {
  private static final String TEXT = "$.result.content[0].text";

  /** A {@code tools/call} answer of one text item. */
  private static Map<String, Object> answer(String text) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("type", "text");
    item.put("text", text);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("content", new ArrayList<>(List.of(item)));
    result.put("isError", false);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("result", result);
    return root;
  }

  private static Comparison texts(String before, String after, String shared) {
    return AnswerDiff.compare(answer(before), answer(after), answer(shared));
  }

  private static Difference only(Comparison c) {
    assertEquals(1, c.differences().size(), () -> "differences: " + c.differences());
    assertEquals(0, c.unlistedDifferences());
    return c.differences().get(0);
  }

  private static void assertSame(Comparison c) {
    assertTrue(c.same(), () -> "differences: " + c.differences());
  }

  private static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  private static String hex(int chars) {
    StringBuilder sb = new StringBuilder();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    for (int i = 0; i < chars; i++) {
      sb.append(Character.forDigit(r.nextInt(16), 16));
    }
    return sb.toString();
  }

  // ---- the cases the probe meets ----------------------------------------------------------------

  @Test
  void identicalAnswersAreTheSameWithNothingVolatile() {
    Comparison c = texts("echo: x", "echo: x", "echo: x");
    assertSame(c);
    assertEquals(List.of(), c.volatileParts());
  }

  @Test
  void aClockThatMovesIsVolatileAndOnlyTheClock() {
    Comparison c = texts("12:01:07 echo: x", "12:01:09 echo: x", "12:01:08 echo: x");
    assertSame(c);
    assertEquals(List.of(TEXT + " (token 5 of 10): \"07\" → \"09\""), c.volatileParts());
  }

  @Test
  void aCounterBesideTheClockIsADifferenceAtTheCounter() {
    Difference d = only(texts("12:01:07 calls=1", "12:01:09 calls=1", "12:01:08 calls=2"));
    assertEquals(TEXT, d.path());
    assertEquals("token 9 of 9", d.position());
    assertEquals("12:01:07 calls=1", d.expected());
    assertEquals("12:01:08 calls=2", d.actual());
  }

  @Test
  void millisecondsThatAgreeByChanceAfterSecondsThatMovedAreVolatileToo() {
    assertSame(texts("17:42:09.023 id=a", "17:42:11.023 id=a", "17:42:10.705 id=a"));
    assertSame(texts("2026-11-30T17:42:09.023Z", "2026-11-30T17:42:11.023Z", "2026-11-30T17:42:10.705Z"));
    // Carried through the run only: the counter after the space is still compared.
    only(texts("17:42:09.023 calls=1", "17:42:11.023 calls=1", "17:42:10.705 calls=2"));
    // And only to LATER numbers: equal leading parts must stay equal.
    only(texts("17:42:09.023", "17:42:09.051", "17:43:09.030"));
  }

  @Test
  void theSameCounterWithTheClockIsTheSame() {
    assertSame(texts("12:01:07 calls=1", "12:01:09 calls=1", "12:01:08 calls=1"));
  }

  @Test
  void aCounterAloneIsADifference() {
    Difference d = only(texts("calls=1", "calls=1", "calls=2"));
    assertEquals(TEXT, d.path());
    assertEquals("calls=1", d.expected());
    assertEquals("calls=2", d.actual());
  }

  @Test
  void aToggleIsADifference() {
    Difference d = only(texts(
        "Started logging for session x", "Started logging for session x", "Stopped logging for session x"));
    assertEquals("token 1 of 9", d.position());
    assertTrue(d.expected().startsWith("Started logging"), d.expected());
    assertTrue(d.actual().startsWith("Stopped logging"), d.actual());
  }

  /**
   * Two random UUIDs with no group in common. A group that two random ids share by chance (about
   * one pair in 3,000) is, to any comparison, a value that did not change, which the shared answer
   * must then hold too.
   */
  private static String[] twoUuids() {
    while (true) {
      String one = UUID.randomUUID().toString();
      String two = UUID.randomUUID().toString();
      List<String> groups = Arrays.asList(one.split("-"));
      if (Arrays.stream(two.split("-")).noneMatch(groups::contains)) {
        return new String[] {one, two};
      }
    }
  }

  @Test
  void randomUuidsAreVolatileAndAThirdOneIsTheSame() {
    for (int i = 0; i < 200; i++) {
      String[] ids = twoUuids();
      Comparison c = texts("created " + ids[0] + " ok", "created " + ids[1] + " ok", "created " + UUID.randomUUID() + " ok");
      assertSame(c);
      assertFalse(c.volatileParts().isEmpty());
    }
  }

  @Test
  void aUuidGroupThatAgreedByChanceAfterOneThatChangedIsCarriedAsVolatile() {
    // One random value: its later groups agreeing by chance prove nothing (the carry of numbers).
    assertSame(texts(
        "created 3f2a9c1e-7b4d-4e2a-9f1c-0d8e7a6b5c4d ok",
        "created 8b0d6e21-7b4d-4c3b-a2e9-91f07d3c2b1a ok",
        "created 5d1c8f0a-2e6b-4a9d-b3c7-e4f2a1d0c9b8 ok"));
    // The word after the id, past the space, is compared.
    Difference d = only(texts(
        "created 3f2a9c1e-7b4d-4e2a-9f1c-0d8e7a6b5c4d ok",
        "created 8b0d6e21-7b4d-4c3b-a2e9-91f07d3c2b1a ok",
        "created 5d1c8f0a-2e6b-4a9d-b3c7-e4f2a1d0c9b8 failed"));
    assertTrue(d.actual().contains("failed"), d.actual());
  }

  @Test
  void aUuidGroupBeforeAnyChangeMustNotChange() {
    Difference d = only(texts(
        "created 7b4d-3f2a9c1e ok",
        "created 7b4d-8b0d6e21 ok",
        "created 2e6b-5d1c8f0a ok"));
    assertTrue(d.expected().contains("7b4d"), d.expected());
  }

  @Test
  void hexIdsOfDifferentLengthsAreVolatileAndAThirdOneIsTheSame() {
    for (int i = 0; i < 200; i++) {
      Comparison c = texts("id=" + hex(12) + " done", "id=" + hex(40) + " done", "id=" + hex(64) + " done");
      assertSame(c);
    }
  }

  @Test
  void aVolatileIdDoesNotHideTheRestOfItsWordInTheOtherAnswers() {
    // The word changes as a whole; the text after it does not.
    Difference d = only(texts("id=ab12 calls=1", "id=cd34 calls=1", "id=ef56 calls=2"));
    assertEquals("token 8 of 8", d.position());
  }

  @Test
  void aVolatileRunDoesNotSwallowWhitespaceSeparatedWords() {
    Difference d = only(texts("id=ab12 calls=1", "id=cd34 calls=1", "id=ef56 calls=1 calls=2"));
    assertEquals(TEXT, d.path());
    assertEquals("after token 8 of 8", d.position());
    assertEquals("id=ef56 calls=1 calls=2", d.actual());
    // Were the id's run to take in "ef56 calls=2", the rest would match.
    Difference swallowed = only(texts("id=ab12 calls=1", "id=cd34 calls=1", "id=ef56 calls=2 calls=1"));
    assertEquals("token 8 of 8", swallowed.position());
    assertEquals("id=ef56 calls=2 calls=1", swallowed.actual());
  }

  @Test
  void aVolatileRunThatHeldWhitespaceMayMatchWhitespace() {
    assertSame(texts("at noon ok", "at half past noon ok", "at a quarter to noon ok"));
    assertSame(texts("at noon ok", "at half past noon ok", "at noon ok"));
    only(texts("at noon ok", "at half past noon ok", "at noon, not ok"));
  }

  @Test
  void aMissingTokenIsADifferenceAtTheEndOfTheShared() {
    Difference d = only(texts("12:01:07 calls=1", "12:01:09 calls=1", "12:01:08 calls="));
    assertEquals("token 9 of 9", d.position());
    assertEquals("12:01:08 calls=", d.actual());
  }

  @Test
  void excerptsAreBoundedAndOnOneLine() {
    String tail = " and then" + " more words".repeat(40);
    String head = "line one\nline two".repeat(10) + " ";
    Difference d = only(texts(head + "calls=1" + tail, head + "calls=1" + tail, head + "calls=2" + tail));
    assertTrue(d.expected().startsWith("…"), d.expected());
    assertTrue(d.expected().endsWith("…"), d.expected());
    assertTrue(d.expected().length() <= AnswerDiff.EXCERPT + 2, d.expected());
    assertTrue(d.expected().contains("calls=1"), d.expected());
    assertTrue(d.actual().contains("calls=2"), d.actual());
    assertFalse(d.expected().contains("\n"), d.expected());
    assertFalse(d.actual().contains("\n"), d.actual());
    assertTrue(d.toString().startsWith(TEXT + " (token "), d.toString());
  }

  @Test
  void aControlCharacterInAnExcerptIsEscaped() {
    Difference d = only(texts("a\nb", "a\nb", "a\nc"));
    assertEquals("a\\nb", d.expected());
    assertEquals("a\\nc", d.actual());
  }

  // ---- objects and arrays -----------------------------------------------------------------------

  @Test
  void anExtraElementInASharedListIsADifferenceAtTheList() {
    Map<String, Object> before = object("resources", List.of(object("uri", "file:///a"), object("uri", "file:///b")));
    Map<String, Object> shared = object("resources",
        List.of(object("uri", "file:///a"), object("uri", "file:///b"), object("uri", "file:///other-caller")));
    Difference d = only(AnswerDiff.compare(before, before, shared));
    assertEquals("$.resources", d.path());
    assertEquals("length 2", d.expected());
    assertEquals("length 3", d.actual());
  }

  @Test
  void aShorterSharedListIsADifferenceAtTheListAndItsPrefixIsCompared() {
    Map<String, Object> before = object("r", List.of(1, 2, 3));
    Comparison c = AnswerDiff.compare(before, before, object("r", List.of(1, 5)));
    assertEquals(2, c.differences().size(), () -> "" + c.differences());
    assertEquals("$.r", c.differences().get(0).path());
    assertEquals("$.r[1]", c.differences().get(1).path());
  }

  @Test
  void anArrayWhoseLengthChangesBetweenTheDedicatedAnswersIsVolatile() {
    Comparison c = AnswerDiff.compare(object("r", List.of(1)), object("r", List.of(1, 2)), object("r", List.of(7, 8, 9)));
    assertSame(c);
    assertEquals(List.of("$.r: 1 element → 2 elements"), c.volatileParts());
  }

  @Test
  void aKeyOnlyInTheSharedIsADifference() {
    Difference d = only(AnswerDiff.compare(object("a", 1), object("a", 1), object("a", 1, "other", "B's")));
    assertEquals("$.other", d.path());
    assertEquals(AnswerDiff.ABSENT, d.expected());
    assertEquals("\"B's\"", d.actual());
  }

  @Test
  void aKeyMissingFromTheSharedIsADifference() {
    Difference d = only(AnswerDiff.compare(object("a", 1, "b", 2), object("a", 1, "b", 2), object("a", 1)));
    assertEquals("$.b", d.path());
    assertEquals("2", d.expected());
    assertEquals(AnswerDiff.ABSENT, d.actual());
  }

  @Test
  void aKeyInOnlyOneDedicatedAnswerIsVolatileWhateverTheShared() {
    Comparison c = AnswerDiff.compare(object("a", 1), object("a", 1, "pid", 4242), object("a", 1));
    assertSame(c);
    assertEquals(List.of("$.pid: (absent) → 4242"), c.volatileParts());
    assertSame(AnswerDiff.compare(object("a", 1), object("a", 1, "pid", 4242), object("a", 1, "pid", 7)));
    assertSame(AnswerDiff.compare(object("a", 1, "pid", 4242), object("a", 1), object("a", 1)));
  }

  @Test
  void keyOrderIsIgnored() {
    assertSame(AnswerDiff.compare(object("a", 1, "b", 2), object("a", 1, "b", 2), object("b", 2, "a", 1)));
  }

  @Test
  void oddKeysAreQuotedInThePath() {
    Difference d = only(AnswerDiff.compare(object("a b", 1), object("a b", 1), object("a b", 2)));
    assertEquals("$[\"a b\"]", d.path());
  }

  // ---- leaves -----------------------------------------------------------------------------------

  @Test
  void numbersAreComparedNumerically() {
    assertSame(AnswerDiff.compare(object("n", 1), object("n", 1L), object("n", 1.0)));
    assertSame(AnswerDiff.compare(object("n", new BigDecimal("1.50")), object("n", 1.5), object("n", new BigDecimal("1.5"))));
    assertSame(AnswerDiff.compare(object("n", BigInteger.TEN), object("n", 10), object("n", 10.0f)));
    assertSame(AnswerDiff.compare(object("n", 0.1), object("n", 0.1), object("n", new BigDecimal("0.1"))));
    Difference d = only(AnswerDiff.compare(object("n", 1), object("n", 1), object("n", 1.0000001)));
    assertEquals("$.n", d.path());
    assertEquals("", d.position());
  }

  @Test
  void notANumberEqualsItselfOnly() {
    assertSame(AnswerDiff.compare(Double.NaN, Double.NaN, Double.NaN));
    only(AnswerDiff.compare(Double.NaN, Double.NaN, 0));
    only(AnswerDiff.compare(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY));
  }

  @Test
  void jsonNullAndJavaNullAreEqual() {
    Map<String, @Nullable Object> javaNull = new HashMap<>();
    javaNull.put("v", null);
    assertSame(AnswerDiff.compare(object("v", Json.NULL), javaNull, javaNull));
    assertSame(AnswerDiff.compare(null, Json.NULL, null));
    Difference d = only(AnswerDiff.compare(object("v", Json.NULL), object("v", Json.NULL), object("v", false)));
    assertEquals("null", d.expected());
    assertEquals("false", d.actual());
  }

  @Test
  void aChangingNumberOrBooleanIsVolatile() {
    Comparison c = AnswerDiff.compare(object("n", 1, "b", true), object("n", 2, "b", false), object("n", 3, "b", true));
    assertSame(c);
    assertEquals(List.of("$.n: 1 → 2", "$.b: true → false"), c.volatileParts());
  }

  @Test
  void aChangingTypeIsVolatileAndATypeChangeInTheSharedIsADifference() {
    Comparison c = AnswerDiff.compare(object("v", "7"), object("v", 7), object("v", List.of()));
    assertSame(c);
    assertEquals(List.of("$.v: \"7\" → 7"), c.volatileParts());
    Difference d = only(AnswerDiff.compare(object("v", 7), object("v", 8), object("v", "7")));
    assertEquals("$.v", d.path());
    assertEquals("\"7\"", d.actual());
  }

  @Test
  void aRootThatDiffersIsADifferenceAtTheRoot() {
    Difference d = only(AnswerDiff.compare("a", "a", "b"));
    assertEquals("$", d.path());
  }

  @Test
  void answersAreTheSameFromManyThreadsAtOnce() throws Exception {
    List<String[]> inputs = List.of(
        new String[] {"12:01:07 calls=1", "12:01:09 calls=1", "12:01:08 calls=2"},
        new String[] {"id=ab12 calls=1", "id=cd34 calls=1", "id=ef56 calls=1 calls=2"},
        new String[] {"at noon ok", "at half past noon ok", "at a quarter to noon ok"},
        new String[] {clocked("07", 1), clocked("09", 1), clocked("08", 2)});
    List<Comparison> expected = inputs.stream().map(t -> texts(t[0], t[1], t[2])).toList();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Comparison>>> workers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int start = w;
        workers.add(pool.submit(() -> {
          List<Comparison> got = new ArrayList<>(expected);
          for (int round = 0; round < 3; round++) {
            for (int i = 0; i < inputs.size(); i++) {
              int k = (start + i) % inputs.size();
              got.set(k, texts(inputs.get(k)[0], inputs.get(k)[1], inputs.get(k)[2]));
            }
          }
          return got;
        }));
      }
      for (Future<List<Comparison>> f : workers) {
        assertEquals(expected, f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- bounds -----------------------------------------------------------------------------------

  /**
   * A text long enough that aligning it whole would take more than the bound, with a clock at
   * both ends so that setting aside the common start and end does not make it short.
   */
  private static String longText(String clock, int counter) {
    StringBuilder sb = new StringBuilder(clock).append(' ');
    for (int i = 0; i < 2_100; i++) {
      sb.append(i == 1_000 ? "calls=" + counter : "w" + i).append(' ');
    }
    return sb.append(clock).toString();
  }

  @Test
  void aLongTextThatChangesIsComparedWholeSoItIsVolatile() {
    Comparison c = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> texts(longText("07", 1), longText("09", 1), longText("08", 2)));
    assertSame(c);
    assertEquals(1, c.volatileParts().size(), () -> "" + c.volatileParts());
    assertTrue(c.volatileParts().get(0).startsWith(TEXT + " (whole text, too long to align): \"07 w0 w1"),
        c.volatileParts().get(0));
  }

  @Test
  void theSameLongTextWithOneChangingTokenIsComparedTokenByToken() {
    // The common start and end are set aside, so the table is small.
    String tail = " calls=1" + " word".repeat(100_000);
    Difference d = only(texts("12:01:07" + tail, "12:01:09" + tail, "12:01:08" + tail.replace("calls=1", "calls=2")));
    assertEquals("token 9 of 200009", d.position());
    assertEquals("12:01:07 calls=1 word word word …", d.expected());
    assertEquals("12:01:08 calls=2 word word word …", d.actual());
  }

  @Test
  void aLongTextThatDoesNotChangeMustNotChange() {
    String text = longText("07", 1);
    Difference d = only(texts(text, text, longText("07", 2)));
    assertEquals("token 3005 of 6304", d.position());
    assertTrue(d.expected().contains("calls=1"), d.expected());
    assertTrue(d.actual().contains("calls=2"), d.actual());
  }

  @Test
  void aHugeTextIsComparedWhole() {
    String big = "x".repeat(AnswerDiff.MAX_TEXT_CHARS) + " calls=1";
    Comparison volatileWhole = texts(big + " 07", big + " 09", big.replace("calls=1", "calls=2") + " 08");
    assertSame(volatileWhole);
    assertTrue(volatileWhole.volatileParts().get(0).contains("whole text, over 1000000 characters"),
        volatileWhole.volatileParts().get(0));
    Difference d = only(texts(big, big, big.replace("calls=1", "calls=2")));
    assertEquals("char 1000008 of 1000008, over 1000000 characters", d.position());
    assertEquals("…xxxxxxxxx calls=2", d.actual());
  }

  /** {@code clock w0 w1 … calls=counter … clock}: 3,604 tokens, none of them common at both ends. */
  private static String clocked(String clock, int counter) {
    StringBuilder sb = new StringBuilder(clock).append(' ');
    for (int i = 0; i < 1_200; i++) {
      sb.append(i == 600 ? "calls=" + counter : "w" + i).append(' ');
    }
    return sb.append(clock).toString();
  }

  @Test
  void theCellsOfOneComparisonAreBounded() {
    // Aligning one pair takes 3,604 x 3,604 cells and matching the shared text about as many:
    // each text is within its own bound, but only two fit in the whole comparison's.
    List<Object> before = new ArrayList<>();
    List<Object> after = new ArrayList<>();
    List<Object> shared = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      before.add(clocked("07", 1));
      after.add(clocked("09", 1));
      shared.add(clocked("08", 2));
    }
    Comparison c = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> AnswerDiff.compare(before, after, shared));
    assertEquals(List.of("$[0]", "$[1]"), c.differences().stream().map(Difference::path).toList());
    assertEquals(4, c.volatileParts().stream().filter(p -> p.contains("(whole text, too long to align)")).count(),
        () -> "" + c.volatileParts());
  }

  private static Object nested(int depth, Object leaf) {
    Object v = leaf;
    for (int i = 0; i < depth; i++) {
      v = i % 2 == 0 ? List.of(v) : Map.of("k", v);
    }
    return v;
  }

  @Test
  void deepNestingIsComparedWholeWithoutOverflowingTheStack() {
    Object before = nested(200_000, 1);
    Comparison same = AnswerDiff.compare(before, nested(200_000, 1), nested(200_000, 1));
    assertSame(same);
    Difference d = only(AnswerDiff.compare(before, nested(200_000, 1), nested(200_000, 2)));
    assertEquals("nested 64 levels deep, compared whole", d.position());
    assertTrue(d.path().startsWith("$.k[0].k[0]"), d.path());
    assertTrue(d.expected().length() <= AnswerDiff.EXCERPT + 1, d.expected());
    Comparison moved = AnswerDiff.compare(before, nested(200_000, 3), nested(200_000, 2));
    assertSame(moved);
    assertEquals(1, moved.volatileParts().size());
  }

  @Test
  void aDifferenceShallowerThanTheBoundIsStillFoundInPlace() {
    Difference d = only(AnswerDiff.compare(nested(10, 1), nested(10, 1), nested(10, 2)));
    assertEquals("", d.position());
    assertEquals(10, d.path().chars().filter(ch -> ch == '[' || ch == '.').count());
  }

  @Test
  void listsAreBoundedAndCounted() {
    List<Object> before = new ArrayList<>(Arrays.asList(new Object[120]));
    List<Object> after = new ArrayList<>(before);
    List<Object> shared = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      before.set(i, i);
      after.set(i, i + 1_000);
      shared.add(i % 2 == 0 ? "x" : i);
    }
    Comparison c = AnswerDiff.compare(before, after, shared);
    assertEquals(AnswerDiff.MAX_LISTED, c.differences().size());
    assertEquals(10, c.unlistedDifferences());
    assertEquals(AnswerDiff.MAX_LISTED + 1, c.volatileParts().size());
    assertEquals("… and 10 more", c.volatileParts().get(AnswerDiff.MAX_LISTED));
    assertEquals(60, c.volatilePlaces().size(), "every volatile place is kept, listed or not");
    assertTrue(c.volatilePlaces().contains(AnswerDiff.Place.whole("$[119]")), c.volatilePlaces().toString());
  }

  /** The 1-based token a difference's position names. */
  private static int token(Difference d) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^token (\\d+) of").matcher(d.position());
    assertTrue(m.find(), d.position());
    return Integer.parseInt(m.group(1));
  }

  /**
   * The places one comparison found volatile tell whether another comparison's difference lies
   * where dedicated answers disagree: the probe's confirmation looks differences up in them.
   */
  @Test
  void aVolatilePlaceCoversTheTokensItSpansAndNoOther() {
    List<AnswerDiff.Place> seconds = texts("t=07 calls=1 of 3", "t=09 calls=1 of 3", "t=08 calls=1 of 3").volatilePlaces();
    assertEquals(1, seconds.size(), seconds.toString());
    AnswerDiff.Place p = seconds.get(0);
    assertEquals(TEXT, p.path());
    int counter = token(only(texts("t=07 calls=1 of 3", "t=07 calls=1 of 3", "t=07 calls=2 of 3")));
    int clock = token(only(texts("t=07 calls=1 of 3", "t=07 calls=1 of 3", "t=08 calls=1 of 3")));
    assertTrue(p.covers(TEXT, clock), p + " covers token " + clock);
    assertFalse(p.covers(TEXT, counter), p + " does not cover token " + counter);
    assertFalse(p.covers("$.result.content[1].text", clock), "another path");
    assertTrue(p.covers(TEXT, 0), "a difference naming no token of the same text");

    AnswerDiff.Place whole = AnswerDiff.Place.whole("$.result.content");
    assertTrue(whole.covers(TEXT, 4));
    assertTrue(whole.covers("$.result.content", 0));
    assertFalse(whole.covers("$.result.contents", 0), "a longer key is not below it");
    AnswerDiff.Place insertion = new AnswerDiff.Place(TEXT, 3, 3);
    assertTrue(insertion.covers(TEXT, 3) && insertion.covers(TEXT, 4));
    assertFalse(insertion.covers(TEXT, 2) || insertion.covers(TEXT, 5));
  }

  @Test
  void sameValueTellsKindsSizesKeysAndNumbersApart() {
    // Kills sameValue returning true where the kinds, an object's size or keys, or an array's
    // size differ (BooleanTrueReturnValsMutator, lines 883 to 904); decimal returning null for
    // a BigInteger (943) or for another Number (954), and with `Double.isFinite` negated (951).
    assertFalse(AnswerValues.sameValue("1", 1));
    assertFalse(AnswerValues.sameValue(Map.of("a", 1), Map.of("a", 1, "b", 2)));
    assertFalse(AnswerValues.sameValue(Map.of("a", 1), Map.of("b", 1)));
    assertFalse(AnswerValues.sameValue(List.of(1), List.of(1, 2)));
    assertTrue(AnswerValues.sameValue(Map.of("a", List.of(1, "x")), Map.of("a", List.of(1L, "x"))));

    BigInteger big = BigInteger.TWO.pow(70);
    assertFalse(AnswerValues.sameValue(big, big.add(BigInteger.ONE)), "2^70 and 2^70 + 1 are one double, not one number");
    assertTrue(AnswerValues.sameValue(big, new BigDecimal(big)));
    assertTrue(AnswerValues.sameValue(new java.util.concurrent.atomic.AtomicLong(5), 5L));
    assertFalse(AnswerValues.sameValue(new java.util.concurrent.atomic.AtomicLong(5), 6L));
    assertTrue(AnswerValues.sameValue(0.1f, 0.1d), "a float is compared by its shortest decimal form");
    assertTrue(AnswerValues.sameValue(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY));
    assertFalse(AnswerValues.sameValue(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY));
    assertTrue(AnswerValues.sameValue(Double.NaN, Double.NaN));
  }

  // ---- display edges. Each test names the mutants of AnswerDiff it kills (method, line at the time, mutator). ----

  private static String keyPath(String key) {
    return only(AnswerDiff.compare(object(key, 1), object(key, 1), object(key, 2))).path();
  }

  /**
   * Kills {@code member} (965, {@code <=} to {@code <}; 968, the bounds of each range, the {@code
   * i > 0} of the digits, and their negations): a key of ASCII letters, digits and underscores that
   * does not start with a digit and has at most 40 characters is shown plain, any other quoted.
   */
  @Test
  void aKeyIsPlainOnlyWhenItIsAShortIdentifier() {
    for (String plain : List.of("a", "z", "A", "Z", "_", "a0", "a9", "_0", "x".repeat(40))) {
      assertEquals("$." + plain, keyPath(plain));
    }
    for (String quoted : List.of("`", "{", "@", "[", "0a", "9", "a/", "a:", "", "é", "a\"b")) {
      assertEquals("$[\"" + quoted.replace("\"", "\\\"") + "\"]", keyPath(quoted));
    }
    assertEquals("$[\"" + "x".repeat(40) + "…\"]", keyPath("x".repeat(41)));
  }

  /** A text over the bound for comparing token by token, with {@code middle} at its centre. */
  private static String huge(String middle) {
    String half = "a".repeat(AnswerDiff.MAX_TEXT_CHARS / 2);
    return half + middle + half;
  }

  /**
   * Kills {@code charExcerpt} (984, the end computed with a subtraction; 994, {@code
   * from > 0} to {@code >= 0}): a text compared whole shows 16 characters on each side of the first
   * that differs, with {@code …} only where it cuts.
   */
  @Test
  void aTextComparedWholeShowsSixteenCharactersOnEachSide() {
    Difference middle = only(texts(huge("0123456789abcdefXghijklmnopqrstuv"), huge("0123456789abcdefXghijklmnopqrstuv"),
        huge("0123456789abcdefYghijklmnopqrstuv")));
    assertEquals("…0123456789abcdefXghijklmnopqrstuv…", middle.expected());
    assertEquals("…0123456789abcdefYghijklmnopqrstuv…", middle.actual());
    assertEquals("char 500017 of 1000033, over 1000000 characters", middle.position());
    String start = "0123456789abcdefX" + "a".repeat(AnswerDiff.MAX_TEXT_CHARS);
    Difference first = only(texts(start, start, start.replace('X', 'Y')));
    assertEquals("0123456789abcdefXaaaaaaaaaaaaaaaa…", first.expected());
    String near = "12X" + "a".repeat(AnswerDiff.MAX_TEXT_CHARS);
    assertEquals("12Yaaaaaaaaaaaaaaaa…", only(texts(near, near, near.replace('X', 'Y'))).actual());
  }

  /**
   * Kills {@code charExcerpt} (985, negated, and {@code from > 0} to {@code >= 0}; 988 and 989): a
   * cut never splits a surrogate pair, and a lone surrogate at the very start is shown escaped.
   */
  @Test
  void aTextComparedWholeIsNeverCutInsideASurrogatePair() {
    String face = "\uD83D\uDE00";
    // The 16th character before X is the second half of a pair, and so is the 17th after it.
    Difference d = only(texts(huge(face + "123456789abcdefX123456789abcdef" + face),
        huge(face + "123456789abcdefX123456789abcdef" + face), huge(face + "123456789abcdefY123456789abcdef" + face)));
    assertEquals("…" + face + "123456789abcdefX123456789abcdef" + face + "…", d.expected());
    // Covers charExcerpt (992): an empty text beside a huge one is shown as such.
    assertEquals("(empty text)", only(texts("", "", huge("x"))).expected());
    String lone = "\uDC00" + "123456789abcdefX" + "a".repeat(AnswerDiff.MAX_TEXT_CHARS);
    assertEquals("\\udc00123456789abcdefYaaaaaaaaaaaaaaaa…", only(texts(lone, lone, lone.replace('X', 'Y'))).actual());
  }

  /**
   * Kills {@code Pattern.Run.position} (819 to 831: each condition negated or at its boundary, each
   * text returned empty, the token numbers computed with the other sign): every form of a volatile
   * run's position.
   */
  @Test
  void aVolatileRunIsPlacedInTheWordsItsPositionPromises() {
    assertEquals(List.of(TEXT + " (tokens 3-4 of 9): \"ab12\" → \"ef56\"", TEXT + " (tokens 6-7 of 9): \"cd34\" → \"gh78\""),
        same(texts("id=ab12-cd34 end", "id=ef56-gh78 end", "id=zz99-yy88 end")).volatileParts());
    assertEquals(List.of(TEXT + " (empty text): \"\" → \"x\""), same(texts("", "x", "y")).volatileParts());
    assertEquals(List.of(TEXT + " (before token 1 of 1): \"\" → \"y \""), same(texts("x", "y x", "x")).volatileParts());
    assertEquals(List.of(TEXT + " (after token 1 of 1): \"\" → \" y\""), same(texts("x", "x y", "x")).volatileParts());
    assertEquals(List.of(TEXT + " (between tokens 2 and 3 of 3): \"\" → \";\""), same(texts("a,b", "a,;b", "a,b")).volatileParts());
  }

  /** {@code c}, checked to be the same. */
  private static Comparison same(Comparison c) {
    assertSame(c);
    return c;
  }

  /**
   * Kills {@code Walk.string} (295, the first equality negated: a shared text equal to {@code
   * before} skipped before its volatile runs were listed) and {@code Walk.object} (238 negated, 239
   * without its call): what varies is listed even where the shared answer agrees with {@code before}.
   */
  @Test
  void volatilePartsAreListedWhenTheSharedEqualsBefore() {
    assertEquals(List.of(TEXT + " (token 5 of 10): \"07\" → \"09\""),
        same(texts("12:01:07 echo: x", "12:01:09 echo: x", "12:01:07 echo: x")).volatileParts());
    assertEquals(List.of("$.pid: {\"n\":4242,\"m\":[1,\"x\"]} → (absent)"),
        same(AnswerDiff.compare(object("a", 1, "pid", object("n", 4242, "m", List.of(1, "x"))), object("a", 1),
            object("a", 1))).volatileParts());
  }

  /**
   * Kills {@code Text.excerpt} (728, {@code <=} to {@code <} and {@code +} to {@code -}; 736, the
   * cut at {@code EXCERPT + 1} moved to {@code EXCERPT - 1}; 738, the empty text shown as nothing).
   */
  @Test
  void aDifferenceWithinATextShowsSixteenCharactersOfWholeTokensAroundIt() {
    Difference d = only(texts("a" + ",".repeat(16) + "1", "a" + ",".repeat(16) + "1", "a" + ",".repeat(16) + "2"));
    assertEquals("…" + ",".repeat(16) + "1", d.expected());
    assertEquals("…" + ",".repeat(16) + "2", d.actual());
    Difference longToken = only(texts("calls " + "q".repeat(200), "calls " + "q".repeat(200), "calls " + "r".repeat(200)));
    assertEquals("calls " + "q".repeat(114) + "…", longToken.expected());
    assertEquals("calls " + "r".repeat(114) + "…", longToken.actual());
    Difference empty = only(texts("x", "x", ""));
    assertEquals("(empty text)", empty.actual());
    assertEquals("token 1 of 1", empty.position());
  }

  /** A difference at {@code $.v} between {@code expected} and a number. */
  private static Difference againstANumber(Object expected) {
    return only(AnswerDiff.compare(object("v", expected), object("v", expected), object("v", 5)));
  }

  /**
   * Kills {@code render} (1001, the cut's bound computed with a subtraction; 1018 and 1033, the
   * checks before each member and element negated or at their boundary; 1022 and 1036, the commas
   * negated; 1024 and 1038, without the call for a member's value or an element): a value is shown
   * as compact JSON, cut after 120 characters with {@code …}.
   */
  @Test
  void aValueIsShownAsCompactJsonCutAfter120Characters() {
    assertEquals("{\"a\":1,\"b\":[true,null,\"x\"],\"c\":{}}",
        againstANumber(object("a", 1, "b", Arrays.asList(true, null, "x"), "c", Map.of())).expected());
    assertEquals("5", againstANumber("x").actual());
    String exactly = "x".repeat(118);
    assertEquals("\"" + exactly + "\"", againstANumber(exactly).expected());
    assertEquals("\"" + "x".repeat(119) + "…", againstANumber("x".repeat(200)).expected());
    // The first member or element fills the 120 characters exactly; the next one is cut.
    assertEquals("{\"k\":\"" + "x".repeat(113) + "\"…", againstANumber(object("k", "x".repeat(113), "b", 1)).expected());
    assertEquals("[\"" + "x".repeat(117) + "\"…", againstANumber(List.of("x".repeat(117), 1)).expected());
  }

  /**
   * Kills {@code Walk.value} (217, {@code >=} to {@code >}): the container at depth 64 is the one
   * compared whole, so the path of the difference has 64 steps.
   */
  @Test
  void theContainerAtDepth64IsComparedWhole() {
    Difference d = only(AnswerDiff.compare(nested(100, 1), nested(100, 1), nested(100, 2)));
    assertEquals("nested 64 levels deep, compared whole", d.position());
    assertEquals(64, d.path().chars().filter(ch -> ch == '[' || ch == '.').count(), d.path());
  }

  /**
   * Kills {@code Walk.string} (291, each {@code >} to {@code >=}): a text of exactly the bound is
   * still compared token by token, whichever of the three answers it is.
   */
  @Test
  void aTextOfExactlyTheBoundIsComparedTokenByToken() {
    String pad = "x".repeat(AnswerDiff.MAX_TEXT_CHARS - " calls=1".length());
    String exact = pad + " calls=1";
    assertEquals(AnswerDiff.MAX_TEXT_CHARS, exact.length());
    assertEquals("token 5 of 5", only(texts(exact, exact, pad + " calls=2")).position());
    assertEquals("token 5 of 5", only(texts(pad + " calls=1", pad + " calls=1", pad + " calls=9")).position());
    // The shared text at the bound; before and after one shorter.
    String shorter = pad.substring(1) + " calls=1";
    assertEquals("token 5 of 5", only(texts(shorter, shorter, pad.substring(1) + " calls=22")).position());
    // Before and after at the bound in turn, the other one shorter: volatile token by token.
    assertEquals(List.of(TEXT + " (token 1 of 5): \"" + "x".repeat(40) + "…\" → \"" + "x".repeat(40) + "…\""),
        same(texts(exact, shorter, exact)).volatileParts());
    assertEquals(List.of(TEXT + " (token 1 of 5): \"" + "x".repeat(40) + "…\" → \"" + "x".repeat(40) + "…\""),
        same(texts(shorter, exact, shorter)).volatileParts());
  }

  /**
   * Kills {@code Walk.wholeText} (342, {@code <} to {@code <=}): a shared text compared whole that
   * is a prefix of the expected one differs where it ends.
   */
  @Test
  void aSharedTextCutShortIsADifferenceWhereItEnds() {
    String big = "x".repeat(AnswerDiff.MAX_TEXT_CHARS) + "yz";
    Difference d = only(texts(big, big, big.substring(0, big.length() - 1)));
    assertEquals("char 1000002 of 1000002, over 1000000 characters", d.position());
    assertEquals("…" + "x".repeat(15) + "yz", d.expected());
    assertEquals("…" + "x".repeat(15) + "y", d.actual());
  }

  /**
   * Kills {@code lcs} (482, {@code <=} to {@code <}: the last column of the table left out): the
   * alignment finds a token that {@code after} holds at its end. Here {@code (} is in both
   * dedicated answers, so it must be in the shared one.
   */
  @Test
  void aTokenThatEndsAfterIsAlignedToo() {
    assertSame(texts("(*", "#(", "%("));
    Difference d = only(texts("(*", "#(", "%%"));
    assertEquals("token 1 of 2", d.position());
  }

  /**
   * Kills {@code decimal} (948, each {@code instanceof} negated): a number of another class is
   * compared by its exact decimal form, never through a {@code double}.
   */
  @Test
  void aNumberOfAnotherClassIsComparedExactly() {
    long wide = (1L << 60) + 1;
    assertTrue(AnswerValues.sameValue(new java.util.concurrent.atomic.AtomicLong(wide), wide));
    assertFalse(AnswerValues.sameValue(new java.util.concurrent.atomic.AtomicLong(wide), wide - 1));
  }

  /**
   * Kills {@code Walk.spend} (384, both {@code >} to {@code >=}): a table of exactly 16,000,000
   * cells is allowed, and so is one that takes exactly the cells left to the comparison. Each text
   * below has no token in common with its {@code after}, so aligning it takes {@code n × m} cells,
   * and matching the empty shared text against its one volatile run takes one more.
   */
  @Test
  void tablesOfExactlyTheBoundsAreAllowed() {
    Comparison one = same(texts(",".repeat(4_000), ";".repeat(4_000), ""));
    assertEquals(List.of(TEXT + " (tokens 1-4000 of 4000): \"" + ",".repeat(40) + "…\" → \"" + ";".repeat(40) + "…\""),
        one.volatileParts());
    // 3 x (16,000,000 + 1) + (15,996,000 + 1) + (3,995 + 1) = 64,000,000 cells, the whole bound.
    List<Object> before = new ArrayList<>();
    List<Object> after = new ArrayList<>();
    int[][] sizes = {{4_000, 4_000}, {4_000, 4_000}, {4_000, 4_000}, {3_999, 4_000}, {5, 799}};
    for (int[] size : sizes) {
      before.add(",".repeat(size[0]));
      after.add(";".repeat(size[1]));
    }
    Comparison all = same(AnswerDiff.compare(before, after, new ArrayList<>(Collections.nCopies(5, ""))));
    assertEquals("$[4] (tokens 1-5 of 5): \",,,,,\" → \"" + ";".repeat(40) + "…\"", all.volatileParts().get(4));
  }

  /**
   * Kills {@code Walk.align} (365, a bound of the common end computed with an addition, which lets
   * it overlap the common start): a token both texts hold once at their start is aligned there.
   */
  @Test
  void theCommonEndNeverOverlapsTheCommonStart() {
    assertEquals(List.of(TEXT + " (after token 1 of 1): \"\" → \" 7\""), same(texts("7", "7 7", "7")).volatileParts());
    assertEquals(List.of(TEXT + " (tokens 2-3 of 3): \" 7\" → \"\""), same(texts("7 7", "7", "7 7")).volatileParts());
  }

  /**
   * Kills {@code table} (583, without the {@code Arrays.fill} that clears each row): a row of the
   * match table starts empty, so {@code ;} cannot be taken as matched where only {@code ,} was.
   */
  @Test
  void fixedTokensMustComeInTheirOrder() {
    assertSame(texts("1,2;3", "4,5;6", "7,8;9"));
    assertEquals("token 4 of 5", only(texts("1,2;3", "4,5;6", ";,")).position());
  }

  /**
   * Kills {@code Walk.match} (418, {@code token >= 0} to {@code > 0}; 423, negated): the fixed
   * tokens at the end, token 0 among them, are set aside before the rest is tabled, so a match of
   * 4,000 fixed tokens after one volatile run takes one row, not a table over the bound.
   */
  @Test
  void fixedTokensAtTheEndAreSetAsideBeforeTheTable() {
    String before = ",".repeat(4_000);
    String after = ";" + before;
    assertSame(texts(before, after, before));
    assertSame(texts(before, after, "%" + before));
  }

  /**
   * Kills {@code Walk.match} (423, {@code < 0} to {@code <= 0}; 433, {@code u > t} to {@code >=}):
   * when the fixed tokens at the end do not match and the table over everything is over the bound,
   * the difference is reported at the first of them that does not match, with the shared token
   * there.
   */
  @Test
  void aMismatchAtTheEndOverTheBoundIsReportedWhereTheEndStopsMatching() {
    String before = ",".repeat(4_000);
    String after = ";" + before;
    Difference other = only(texts(before, after, "@" + ",".repeat(3_999)));
    assertEquals("token 1 of 4000", other.position());
    assertEquals(",".repeat(17) + "…", other.expected());
    assertEquals("@" + ",".repeat(16) + "…", other.actual());
    Difference shorter = only(texts(before, after, ",".repeat(3_999)));
    assertEquals("token 1 of 4000", shorter.position());
    assertEquals(",".repeat(17) + "…", shorter.actual());
  }

  /**
   * Compares a list of texts whose alignments and matches leave exactly {@code left} of the
   * comparison's cells, followed by {@code before}, {@code after} and {@code shared}; the last
   * text's comparison is returned as the comparison's last volatile part or difference.
   */
  private static Comparison withCellsLeft(long left, String before, String after, String shared) {
    // Each filler has no token in common with its after: aligning takes n x m cells, matching the
    // empty shared text one more. 3 x (16,000,000 + 1) + (15,996,000 + 1) leaves 3,996 cells.
    List<int[]> sizes = new ArrayList<>(List.of(new int[] {4_000, 4_000}, new int[] {4_000, 4_000},
        new int[] {4_000, 4_000}, new int[] {3_999, 4_000}));
    long last = 3_996 - 1 - left;
    int n = 2;
    while (last % n != 0 || last / n > 4_000) {
      n++;
    }
    sizes.add(new int[] {n, (int) (last / n)});
    List<Object> b = new ArrayList<>();
    List<Object> a = new ArrayList<>();
    List<Object> s = new ArrayList<>();
    for (int[] size : sizes) {
      b.add(",".repeat(size[0]));
      a.add(";".repeat(size[1]));
      s.add("");
    }
    b.add(before);
    a.add(after);
    s.add(shared);
    return AnswerDiff.compare(b, a, s);
  }

  /**
   * Kills {@code Walk.match} (424, each operand of the cells a trimmed table takes changed): here
   * aligning the last text takes 1 cell and matching it 2 ({@code (q - p) × (u - t + 1)} = 1 × 2),
   * which fit in 3 cells and not in 2.
   */
  @Test
  void aTrimmedTableTakesExactlyItsCells() {
    assertTrue(same(withCellsLeft(3, "<1>", "<2>", "<9>")).volatileParts().stream().noneMatch(p -> p.contains("too long")));
    Comparison over = same(withCellsLeft(2, "<1>", "<2>", "<9>"));
    assertEquals("$[5] (whole text, too long to match): \"<1>\" → \"<2>\"", over.volatileParts().get(over.volatileParts().size() - 1));
  }

  /**
   * Kills {@code Walk.match} (436, each operand of the cells of the table over the whole rest
   * changed, and the product made a quotient): the fixed {@code >} at the end does not match, so the
   * rest is tabled, at {@code (size - p) × (count - t + 1)} = 2 × 23 = 46 cells. With them the
   * difference is placed by the table, past the shared text's end; without them where the end
   * stopped matching, at its last token.
   */
  @Test
  void theTableOverTheRestTakesExactlyItsCells() {
    String shared = "<9)" + ",".repeat(20);
    Comparison fits = withCellsLeft(1 + 46, "<1>", "<2>", shared);
    assertEquals(1, fits.differences().size(), () -> "" + fits.differences());
    assertEquals("…" + ",".repeat(16), fits.differences().get(0).actual());
    Comparison over = withCellsLeft(1 + 45, "<1>", "<2>", shared);
    assertEquals(1, over.differences().size(), () -> "" + over.differences());
    assertEquals("…" + ",".repeat(17), over.differences().get(0).actual());
  }

  /** The end of a text whose last token is longer than the context is shown as a cut, not as an empty text. */
  @Test
  void theEndOfATextWithALongLastTokenIsShownAsACut() {
    String text = "calls " + "q".repeat(20);
    Difference d = only(texts(text, text, text + "!"));
    assertEquals("after token 3 of 3", d.position());
    assertEquals("…", d.expected());
    assertEquals("…!", d.actual());
  }
}
