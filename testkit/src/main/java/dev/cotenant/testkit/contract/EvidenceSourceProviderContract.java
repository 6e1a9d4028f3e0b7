package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.testkit.process.ProcessSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract of an {@link EvidenceSourceProvider} and the {@link EvidenceSource} it creates
 * (docs/architecture.md; STYLE "one small interface per extension point").
 *
 * <p><b>Checks</b> (beside {@link NamedProviderContract}'s name and construction rules): the
 * provider creates a source from a context with empty configuration; the source never returns
 * null nor a null finding; it is pure (the same input twice gives equal findings, in the same
 * order, and two sources created alike agree); every finding names this provider as its
 * {@link Finding#source()} and uses a code of the closed vocabulary that a source may contribute
 * ({@link ReasonCode.Origin#SOURCE}: never {@code observed_hazard}, {@code preflight_passed} or
 * another code the core derives); it is thread-safe (several threads get the same answers as one);
 * it starts no process.
 *
 * <p><b>Extending:</b> implement {@link #constructor()}; override {@link #inputs()} to add inputs
 * your source speaks about (keep {@code super.inputs()}), and {@link #context()} when it needs
 * configuration. Test methods are package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class EvidenceSourceProviderContract
    extends NamedProviderContract<EvidenceSourceProvider, EvidenceSource> {
  private static final int ROUNDS = 20;

  /** For subclasses. */
  protected EvidenceSourceProviderContract() {
    super(EvidenceSourceProvider::create);
  }

  /** The inputs the source is called with; {@link Samples#evidenceInputs()} by default. */
  protected List<EvidenceInput> inputs() {
    return Samples.evidenceInputs();
  }

  /** A source created by a new provider from {@link #context()}. */
  protected final EvidenceSource source() {
    return created();
  }

  @Test
  void findingsAreNeverNull() {
    EvidenceSource s = source();
    for (EvidenceInput input : inputs()) {
      findingsOf(s, input);
    }
  }

  @Test
  void findingsArePure() {
    assertPure(source(), source(), inputs(), EvidenceSourceProviderContract::findingsOf,
        "a second call with the same input answered differently", "two sources created alike answered differently");
  }

  @Test
  void findingsNameThisProviderAsTheirSource() {
    String name = provider().name();
    EvidenceSource s = source();
    for (EvidenceInput input : inputs()) {
      for (Finding f : findingsOf(s, input)) {
        assertEquals(name, f.source(), "a finding does not name provider '" + name + "' as its source: " + f);
      }
    }
  }

  @Test
  void findingsUseOnlyCodesASourceMayContribute() {
    EvidenceSource s = source();
    for (EvidenceInput input : inputs()) {
      for (Finding f : findingsOf(s, input)) {
        Optional<ReasonCode> code = ReasonCode.fromWire(f.code());
        if (code.isEmpty()) {
          fail("finding " + f + " uses a code outside the closed vocabulary " + ReasonCode.allWireNames());
        }
        assertEquals(ReasonCode.Origin.SOURCE, code.get().origin(),
            "finding " + f + " uses a code the core derives itself; a source may not contribute it");
      }
    }
  }

  @Test
  void findingsAreThreadSafe() throws Exception {
    EvidenceSource s = source();
    List<EvidenceInput> inputs = inputs();
    List<List<Finding>> expected = new ArrayList<>();
    for (EvidenceInput input : inputs) {
      expected.add(findingsOf(s, input));
    }
    assertEquals(List.of(), Concurrently.disagreements(ROUNDS, 7, inputs, expected, s::findings, k -> "input " + k),
        "called from " + Concurrently.THREADS + " threads at once, the source answered differently");
  }

  @Test
  void findingsStartNoProcess() {
    ProcessSnapshot before = ProcessSnapshot.take();
    EvidenceSource s = source();
    for (EvidenceInput input : inputs()) {
      findingsOf(s, input);
    }
    assertNoProcessStartedSince(before, "the source");
  }

  private static List<Finding> findingsOf(EvidenceSource s, EvidenceInput input) {
    List<Finding> out = s.findings(input);
    assertNotNull(out, "findings(...) returned null for " + input);
    for (Finding f : out) {
      assertNotNull(f, "findings(...) returned a null finding for " + input);
    }
    return out;
  }
}
