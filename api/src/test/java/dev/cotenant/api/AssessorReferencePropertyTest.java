package dev.cotenant.api;

import static dev.cotenant.api.EvidenceGenerators.evidence;
import static dev.cotenant.api.EvidenceGenerators.insertedAnywhere;
import static dev.cotenant.api.EvidenceGenerators.sourceName;
import static dev.cotenant.api.EvidenceGenerators.withFindingsInserted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@link Assessor} gives exactly the verdict, or exactly the refusal, of {@link ReferenceAssessor}.
 * Each property is a static method taking the theory to run and the assessor it checks, so
 * {@link PropertiesBiteTest} can show it fails on a broken one.
 */
class AssessorReferencePropertyTest {

  /** Evidence with every finding, observation and divergent facet twice, the copies of findings anywhere. */
  private static Gen<Evidence> evidenceWithDuplicates() {
    return evidence()
        .flatMap(
            e ->
                insertedAnywhere(e.findings(), e.findings())
                    .map(
                        doubled -> {
                          List<HazardCode> obs = new ArrayList<>(e.observations());
                          obs.addAll(e.observations());
                          PreflightOutcome pre = e.preflight();
                          if (pre instanceof PreflightOutcome.Ran) {
                            List<String> facets = new ArrayList<>(((PreflightOutcome.Ran) pre).divergentFacets());
                            facets.addAll(((PreflightOutcome.Ran) pre).divergentFacets());
                            pre = new PreflightOutcome.Ran(facets);
                          }
                          List<Reason> notes = new ArrayList<>(e.recordsNotes());
                          notes.addAll(e.recordsNotes());
                          return new Evidence(obs, doubled, pre, e.handshakeObserved(), e.recordsComplete(), notes);
                        }));
  }

  /** Evidence with one or two findings of an unknown or core-only code anywhere among its findings. */
  private static Gen<Evidence> evidenceWithABadFinding() {
    Gen<Finding> bad =
        Generate.oneOf(
            sourceName().zip(EvidenceGenerators.unknownCode(), (s, c) -> new Finding(s, c, "")),
            sourceName().zip(Generate.pick(EvidenceGenerators.CORE_CODES), (s, c) -> Finding.of(s, c, "")));
    return evidence()
        .zip(lists().of(bad).ofSizeBetween(1, 2), Pair::of)
        .flatMap(p -> withFindingsInserted(p._1, p._2));
  }

  private static String outcome(Supplier<Verdict> assess) {
    try {
      return assess.get().toString();
    } catch (EvidenceRejectedException e) {
      return "refused " + e.source() + " " + e.code() + ": " + e.getMessage();
    }
  }

  @Test
  void sameVerdictAsTheReference() {
    sameVerdictAsTheReference(Theories.qt(), Assessor::assess);
  }

  static void sameVerdictAsTheReference(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidence()).checkAssert(e -> assertEquals(ReferenceAssessor.assess(e), assess.apply(e)));
  }

  @Test
  void sameVerdictAsTheReference_withDuplicatedEvidence() {
    sameVerdictAsTheReference_withDuplicatedEvidence(Theories.qt(), Assessor::assess);
  }

  static void sameVerdictAsTheReference_withDuplicatedEvidence(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidenceWithDuplicates())
        .checkAssert(e -> assertEquals(ReferenceAssessor.assess(e), assess.apply(e)));
  }

  @Test
  void sameRefusalAsTheReference() {
    sameRefusalAsTheReference(Theories.qt(), Assessor::assess);
  }

  static void sameRefusalAsTheReference(QuickTheory qt, Function<Evidence, Verdict> assess) {
    qt.forAll(evidenceWithABadFinding())
        .checkAssert(e -> assertEquals(outcome(() -> ReferenceAssessor.assess(e)), outcome(() -> assess.apply(e))));
  }
}
