package dev.cotenant.api;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators for {@link Evidence}: ledger observations, findings of every source-origin code
 * with arbitrary details and source names, every pre-flight outcome, and the handshake flag.
 * Weights keep every strength reachable: observations and disqualifying facts are present often
 * enough to be tested and rarely enough that weaker strengths are tested too.
 */
final class EvidenceArbitraries {
  private EvidenceArbitraries() {}

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
  static Arbitrary<String> text() {
    return Arbitraries.oneOf(
        Arbitraries.of("", "GITHUB_TOKEN", "logging_level", "2024-11-05", "cotenant.caller-identity", "global"),
        Arbitraries.strings().all().ofMaxLength(24));
  }

  /** Provider names: usually tidy, sometimes hostile. */
  static Arbitrary<String> sourceName() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.strings().withCharRange('a', 'z').withChars('_', '-').ofMinLength(1).ofMaxLength(24)),
        Tuple.of(1, Arbitraries.strings().all().ofMaxLength(40)));
  }

  static Arbitrary<Finding> findingOf(List<ReasonCode> codes) {
    return Combinators.combine(sourceName(), Arbitraries.of(codes), text()).as(Finding::of);
  }

  /** A finding with any source-origin code. */
  static Arbitrary<Finding> finding() {
    return findingOf(SOURCE_CODES);
  }

  /** A note-role finding. */
  static Arbitrary<Finding> noteFinding() {
    return findingOf(SOURCE_NOTE_CODES);
  }

  static Arbitrary<List<Finding>> findings() {
    return finding().list().ofMaxSize(7);
  }

  static Arbitrary<List<HazardCode>> observations() {
    return Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(List.<HazardCode>of())),
        Tuple.of(1, Arbitraries.of(HazardCode.class).list().ofMinSize(1).ofMaxSize(3)));
  }

  static Arbitrary<String> facet() {
    return Arbitraries.oneOf(
        Arbitraries.of("capabilities", "protocolVersion", "serverInfo", "tools", "tool_annotations"), text());
  }

  static Arbitrary<PreflightOutcome> divergedPreflight() {
    return facet().list().ofMinSize(1).ofMaxSize(3).map(PreflightOutcome.Ran::new);
  }

  static Arbitrary<PreflightOutcome> preflight() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.of(PreflightOutcome.NOT_MEASURED, new PreflightOutcome.NotMeasured())),
        Tuple.of(2, text().map(PreflightOutcome.NotRun::new)),
        Tuple.of(3, Arbitraries.just(PreflightOutcome.passed())),
        Tuple.of(2, divergedPreflight()));
  }

  static Arbitrary<Evidence> evidence() {
    return Combinators.combine(observations(), findings(), preflight(), Arbitraries.of(true, false))
        .as(Evidence::new);
  }

  /** A code string the vocabulary does not contain, including near misses of real codes. */
  static Arbitrary<String> unknownCode() {
    Arbitrary<String> nearMiss =
        Arbitraries.of(ReasonCode.values())
            .flatMap(
                c ->
                    Arbitraries.of(
                        c.wireName().toUpperCase(java.util.Locale.ROOT),
                        c.name(),
                        c.wireName() + " ",
                        " " + c.wireName(),
                        c.wireName().replace('_', '-'),
                        c.wireName() + "\n"));
    return Arbitraries.oneOf(nearMiss, Arbitraries.strings().all().ofMaxLength(30))
        .filter(s -> ReasonCode.fromWire(s).isEmpty());
  }
}
