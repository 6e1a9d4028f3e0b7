package dev.cotenant.benchmarks;

import dev.cotenant.api.Assessor;
import dev.cotenant.api.Evidence;
import dev.cotenant.api.Finding;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.Verdict;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of the fixed core, {@link Assessor#assess}, in verdicts per second on one thread.
 *
 * <p>{@link #typical} assesses the evidence a real stdio server usually produces: a declaration,
 * two notes, two supporting findings and a pre-flight that passed (six reasons in the verdict).
 * {@link #refuted} adds a ledger entry, and {@link #unknown} is the empty case. Goal (see
 * {@code docs/performance.md}): at least 1,000,000 verdicts per second for {@link #typical}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar AssessBenchmark -f 1 -wi 3 -i 5 -t 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AssessBenchmark {

  private Evidence typical;
  private Evidence refuted;
  private Evidence unknown;

  /** Builds the evidence once; the benchmark measures only the assessment. */
  @Setup
  public void setUp() {
    List<Finding> findings =
        List.of(
            Finding.of("declares_caller_identity", ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"),
            Finding.of("rotating_secret_env", ReasonCode.ROTATING_SECRET_ENV, "GITHUB_TOKEN"),
            Finding.of("degrades_when_shared", ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"),
            Finding.of("all_tools_read_only", ReasonCode.ALL_TOOLS_READ_ONLY),
            Finding.of("no_tool_annotations", ReasonCode.NO_TOOL_ANNOTATIONS, "2024-11-05"));
    typical = new Evidence(List.of(), findings, PreflightOutcome.passed(), true);
    refuted = new Evidence(List.of(HazardCode.UNROUTABLE_SERVER_REQUEST), findings, PreflightOutcome.passed(), true);
    unknown = Evidence.none();
  }

  /** A declared server with notes, supporting findings and a passed pre-flight. */
  @Benchmark
  public Verdict typical() {
    return Assessor.assess(typical);
  }

  /** The same evidence with a ledger entry. */
  @Benchmark
  public Verdict refuted() {
    return Assessor.assess(refuted);
  }

  /** No evidence at all. */
  @Benchmark
  public Verdict unknown() {
    return Assessor.assess(unknown);
  }
}
