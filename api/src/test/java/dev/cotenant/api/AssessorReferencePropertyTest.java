package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link Assessor} gives exactly the verdict, or exactly the refusal, of {@link ReferenceAssessor}. */
class AssessorReferencePropertyTest {

  @Provide
  Arbitrary<Evidence> evidence() {
    return EvidenceArbitraries.evidence();
  }

  @Provide
  Arbitrary<Evidence> evidenceWithDuplicates() {
    return EvidenceArbitraries.evidence()
        .flatMap(
            e ->
                Arbitraries.longs()
                    .map(
                        seed -> {
                          Random random = new Random(seed);
                          List<Finding> doubled = new ArrayList<>(e.findings());
                          for (Finding f : e.findings()) {
                            doubled.add(random.nextInt(doubled.size() + 1), f);
                          }
                          List<HazardCode> obs = new ArrayList<>(e.observations());
                          obs.addAll(e.observations());
                          PreflightOutcome pre = e.preflight();
                          if (pre instanceof PreflightOutcome.Ran) {
                            List<String> facets = new ArrayList<>(((PreflightOutcome.Ran) pre).divergentFacets());
                            facets.addAll(((PreflightOutcome.Ran) pre).divergentFacets());
                            pre = new PreflightOutcome.Ran(facets);
                          }
                          return new Evidence(obs, doubled, pre, e.handshakeObserved());
                        }));
  }

  @Provide
  Arbitrary<Evidence> evidenceWithABadFinding() {
    Arbitrary<Finding> bad =
        Arbitraries.oneOf(
            net.jqwik.api.Combinators.combine(EvidenceArbitraries.sourceName(), EvidenceArbitraries.unknownCode())
                .as((s, c) -> new Finding(s, c, "")),
            net.jqwik.api.Combinators.combine(
                    EvidenceArbitraries.sourceName(), Arbitraries.of(EvidenceArbitraries.CORE_CODES))
                .as((s, c) -> Finding.of(s, c, "")));
    return net.jqwik.api.Combinators.combine(EvidenceArbitraries.evidence(), bad.list().ofMinSize(1).ofMaxSize(2), Arbitraries.longs())
        .as(
            (e, bads, seed) -> {
              Random random = new Random(seed);
              List<Finding> all = new ArrayList<>(e.findings());
              for (Finding b : bads) {
                all.add(random.nextInt(all.size() + 1), b);
              }
              return new Evidence(e.observations(), all, e.preflight(), e.handshakeObserved());
            });
  }

  private static String outcome(java.util.function.Supplier<Verdict> assess) {
    try {
      return assess.get().toString();
    } catch (EvidenceRejectedException e) {
      return "refused " + e.source() + " " + e.code() + ": " + e.getMessage();
    }
  }

  @Property
  void sameVerdictAsTheReference(@ForAll("evidence") Evidence e) {
    assertEquals(ReferenceAssessor.assess(e), Assessor.assess(e));
  }

  @Property
  void sameVerdictAsTheReference_withDuplicatedEvidence(@ForAll("evidenceWithDuplicates") Evidence e) {
    assertEquals(ReferenceAssessor.assess(e), Assessor.assess(e));
  }

  @Property
  void sameRefusalAsTheReference(@ForAll("evidenceWithABadFinding") Evidence e) {
    assertEquals(outcome(() -> ReferenceAssessor.assess(e)), outcome(() -> Assessor.assess(e)));
  }
}
