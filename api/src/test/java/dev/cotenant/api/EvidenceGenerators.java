package dev.cotenant.api;

import static dev.cotenant.api.TextGenerators.anyChar;
import static dev.cotenant.api.TextGenerators.charsBetween;
import static dev.cotenant.api.TextGenerators.charsOf;
import static dev.cotenant.api.TextGenerators.strings;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * QuickTheories generators for {@link Evidence}: ledger observations, findings of every
 * source-origin code with arbitrary details and source names, every pre-flight outcome, the
 * handshake flag, and whether the records were read completely with the notes saying why not. Weights keep every strength reachable: observations and disqualifying facts
 * are present often enough to be tested and rarely enough that weaker strengths are tested too.
 *
 * <p>Every generator is composed from QuickTheories' own draws (ranges, picks, lists,
 * frequencies), including the positions {@link #insertedAnywhere} and {@link #shuffled} draw,
 * so a falsifying example shrinks: fewer and shorter findings, inserted elements towards the
 * front, a permutation towards the original order.
 */
final class EvidenceGenerators {
  private EvidenceGenerators() {}

  /** Every code an evidence source may contribute. */
  static final List<ReasonCode> SOURCE_CODES =
      Arrays.stream(ReasonCode.values())
          .filter(c -> c.origin() == ReasonCode.Origin.SOURCE)
          .collect(Collectors.toUnmodifiableList());

  /** Source-origin codes that are notes. */
  static final List<ReasonCode> SOURCE_NOTE_CODES =
      SOURCE_CODES.stream().filter(c -> c.role() == ReasonRole.NOTE).collect(Collectors.toUnmodifiableList());

  /** Codes only the core derives. */
  static final List<ReasonCode> CORE_CODES =
      Arrays.stream(ReasonCode.values())
          .filter(c -> c.origin() == ReasonCode.Origin.CORE)
          .collect(Collectors.toUnmodifiableList());

  /** Verbatim text a server or a file chose: anything, control characters included. */
  static Gen<String> text() {
    return Generate.oneOf(
        Generate.pick(List.of("", "GITHUB_TOKEN", "logging_level", "2024-11-05", "cotenant.caller-identity", "global")),
        strings(anyChar(), 0, 24));
  }

  /** Provider names: usually tidy, sometimes hostile. */
  static Gen<String> sourceName() {
    Gen<Character> tidy = Generate.oneOf(charsBetween('a', 'z'), charsOf('_', '-'));
    return Generate.frequency(Pair.of(4, strings(tidy, 1, 24)), Pair.of(1, strings(anyChar(), 0, 40)));
  }

  static Gen<Finding> findingOf(List<ReasonCode> codes) {
    return sourceName().zip(Generate.pick(codes), text(), Finding::of);
  }

  /** A finding with any source-origin code. */
  static Gen<Finding> finding() {
    return findingOf(SOURCE_CODES);
  }

  /** A note-role finding. */
  static Gen<Finding> noteFinding() {
    return findingOf(SOURCE_NOTE_CODES);
  }

  static Gen<List<Finding>> findings() {
    return lists().of(finding()).ofSizeBetween(0, 7);
  }

  /** The ledger codes that refute sharing. */
  static final List<HazardCode> REFUTING =
      java.util.Arrays.stream(HazardCode.values()).filter(HazardCode::refutesSharing).toList();

  /** The ledger codes that do not ({@link HazardCode#DEFERRED_ANSWER_CHANGED}). */
  static final List<HazardCode> NOT_REFUTING =
      java.util.Arrays.stream(HazardCode.values()).filter(h -> !h.refutesSharing()).toList();

  /** One to three ledger observations that refute sharing. */
  static Gen<List<HazardCode>> observed() {
    return lists().of(Generate.pick(REFUTING)).ofSizeBetween(1, 3);
  }

  /** One or two ledger observations that do not refute sharing. */
  static Gen<List<HazardCode>> observedNotRefuting() {
    return lists().of(Generate.pick(NOT_REFUTING)).ofSizeBetween(1, 2);
  }

  static Gen<List<HazardCode>> observations() {
    return Generate.frequency(Pair.of(5, Generate.constant(List.<HazardCode>of())), Pair.of(1, observed()),
        Pair.of(1, lists().of(Generate.enumValues(HazardCode.class)).ofSizeBetween(1, 3)));
  }

  static Gen<String> facet() {
    return Generate.oneOf(
        Generate.pick(List.of("capabilities", "protocolVersion", "serverInfo", "tools", "tool_annotations")), text());
  }

  /** One to three divergent facets. */
  static Gen<List<String>> facets() {
    return lists().of(facet()).ofSizeBetween(1, 3);
  }

  static Gen<PreflightOutcome> divergedPreflight() {
    return facets().map(PreflightOutcome.Ran::new);
  }

  static Gen<PreflightOutcome> preflight() {
    return Generate.frequency(
        Pair.of(3, Generate.pick(List.of(PreflightOutcome.NOT_MEASURED, new PreflightOutcome.NotMeasured()))),
        Pair.of(2, text().map(PreflightOutcome.NotRun::new)),
        Pair.of(3, Generate.constant(PreflightOutcome.passed())),
        Pair.of(2, divergedPreflight()));
  }

  /** A note saying why the records could not be read completely, with any detail. */
  static Gen<Reason> recordsNote() {
    return Generate.pick(List.copyOf(Evidence.RECORDS_NOTE_CODES)).zip(text(), Reason::new);
  }

  /** Zero to two records notes. */
  static Gen<List<Reason>> recordsNotes() {
    return lists().of(recordsNote()).ofSizeBetween(0, 2);
  }

  /**
   * Whether the records were read completely, and the notes saying why not. Mostly complete
   * without notes, as read from healthy records; often incomplete, usually with notes and
   * sometimes without; now and then complete with notes, since the flag, not the notes, is the
   * gate.
   */
  static Gen<Pair<Boolean, List<Reason>>> records() {
    return Generate.frequency(
        Pair.of(6, Generate.constant(Pair.of(true, List.<Reason>of()))),
        Pair.of(3, recordsNotes().map(n -> Pair.of(false, n))),
        Pair.of(1, recordsNotes().map(n -> Pair.of(true, n))));
  }

  static Gen<Evidence> evidence() {
    return observations()
        .zip(findings(), preflight(), Generate.booleans(), Evidence::new)
        .zip(records(), (e, r) -> e.withRecords(r._1, r._2));
  }

  /** A code string the vocabulary does not contain, including near misses of real codes. */
  static Gen<String> unknownCode() {
    Gen<String> nearMiss = Generate.enumValues(ReasonCode.class).flatMap(c -> Generate.pick(nearMisses(c)));
    Gen<String> any = strings(anyChar(), 0, 30).assuming(s -> ReasonCode.fromWire(s).isEmpty());
    return Generate.oneOf(nearMiss, any);
  }

  /** Spellings close to {@code code}'s wire name that are not in the vocabulary. */
  private static List<String> nearMisses(ReasonCode code) {
    String wire = code.wireName();
    return Stream.of(
            wire.toUpperCase(Locale.ROOT), code.name(), wire + " ", " " + wire, wire.replace('_', '-'), wire + "\n")
        .filter(s -> ReasonCode.fromWire(s).isEmpty())
        .collect(Collectors.toUnmodifiableList());
  }

  /**
   * {@code base} with each element of {@code inserted} put at a position drawn for it among the
   * elements already there, each position as likely.
   */
  static <T> Gen<List<T>> insertedAnywhere(List<T> base, List<T> inserted) {
    return in -> {
      List<T> out = new ArrayList<>(base);
      for (T t : inserted) {
        out.add(Generate.range(0, out.size()).generate(in), t);
      }
      return out;
    };
  }

  /** {@code e} with each of {@code inserted} put anywhere among its findings. */
  static Gen<Evidence> withFindingsInserted(Evidence e, List<Finding> inserted) {
    return insertedAnywhere(e.findings(), inserted).map(all -> withFindings(e, all));
  }

  /** A permutation of {@code list}, each as likely. */
  static <T> Gen<List<T>> shuffled(List<T> list) {
    return in -> {
      List<T> out = new ArrayList<>(list);
      for (int i = 0; i < out.size() - 1; i++) {
        Collections.swap(out, i, Generate.range(i, out.size() - 1).generate(in));
      }
      return out;
    };
  }

  /** {@code e} with {@code findings} in place of its own. */
  static Evidence withFindings(Evidence e, List<Finding> findings) {
    return copy(e, e.observations(), findings, e.preflight(), e.handshakeObserved());
  }

  /** {@code e} with the given parts in place of its own; whether its records were complete, and why not, kept. */
  static Evidence copy(
      Evidence e, List<HazardCode> observations, List<Finding> findings, PreflightOutcome preflight,
      boolean handshakeObserved) {
    return new Evidence(observations, findings, preflight, handshakeObserved, e.recordsComplete(), e.recordsNotes());
  }
}
