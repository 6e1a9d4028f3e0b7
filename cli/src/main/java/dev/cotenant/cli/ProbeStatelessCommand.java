package dev.cotenant.cli;

import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.SurfaceOutput;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.probe.ArgumentTemplate;
import dev.cotenant.gateway.probe.ProbeReport;
import dev.cotenant.gateway.probe.ProbeReport.Assertion;
import dev.cotenant.gateway.probe.ProbeReport.Round;
import dev.cotenant.gateway.probe.ProbeSpec;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceProbe;
import dev.cotenant.gateway.probe.SurfaceReport;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cotenant probe-stateless NAME [--plan FILE] [--rounds N] [CONFIG...]}: runs the
 * whole-surface statelessness probe (docs/statelessness.md, {@link dev.cotenant.gateway.probe.SurfaceProbe})
 * against one configured server, prints a result per tool and listing, the traffic, the hazards
 * and the coverage, and records the result: hazards in the hazard ledger, a whole-surface pass in
 * {@code concurrency-records.json} (the one kind of pass a {@code shared} registration accepts).
 *
 * <p>With {@code --tool T --args JSON [--read-back-tool T --read-back-args JSON]} it probes that
 * one tool instead and prints each round's three assertions; its pass is supporting evidence only.
 *
 * <p>Exit status {@value Cli#EXIT_OK} on a pass, {@value #EXIT_LEAK} when a hazard was observed
 * (a leak), {@value #EXIT_NOT_PROVEN} when the probe proved nothing (a tool not exercised, a
 * caller without its own marker back, or a server that could not be probed),
 * {@value #EXIT_NOT_RECORDED} on a pass that could not be recorded.
 *
 * <p>A result that cannot be recorded (the records directory cannot be written) is still
 * printed in full, followed by one line on standard error, {@code cotenant: recording failed:
 * ...}, saying what was not written and why. A leak keeps its status {@value #EXIT_LEAK}.
 */
@Command(
    name = "probe-stateless",
    description =
        "Run the statelessness probe against one server: two callers A and B interleaved on one backend process, "
            + "compared with the same calls on dedicated backends. Without --tool every listed tool and every "
            + "session-visible listing is probed (the whole surface, which a shared registration needs). A hazard "
            + "is recorded in the hazard ledger (exit status 3); a pass is remembered under the server's current "
            + "identity (exit status 0). Exit status 4 when nothing was proven, 5 when a pass could not be recorded.")
public final class ProbeStatelessCommand extends CliCommand {
  /** A caller saw the other's marker: recorded as {@code cross_session_leak}. */
  public static final int EXIT_LEAK = 3;
  /** No leak was seen, but nothing was proven either (no own marker back, or the probe could not run). */
  public static final int EXIT_NOT_PROVEN = 4;
  /** The probe passed, but the pass could not be written to the records: it is not remembered. */
  public static final int EXIT_NOT_RECORDED = 5;

  @Mixin ServerArguments server = new ServerArguments();

  @Option(names = "--tool", paramLabel = "T",
      description = "Probe this one tool only (supporting evidence; it cannot back a shared registration).")
  String tool;

  @Option(names = "--args", paramLabel = "JSON",
      description = "With --tool: its arguments, a JSON object whose string values may hold {marker} and {workspace}.")
  String args;

  @Mixin ProbePlanOption plan = new ProbePlanOption();

  @Option(names = "--read-back-tool", paramLabel = "T", description = "A tool each caller calls after the first; its answer must carry the caller's marker.")
  String readBackTool;

  @Option(names = "--read-back-args", paramLabel = "JSON", description = "The read-back tool's arguments (default {}).")
  String readBackArgs;

  @Option(names = "--rounds", paramLabel = "N",
      description = "Rounds to run (at least 3; default 3 for the whole surface, 5 for one tool).")
  Integer rounds;

  /** Created by picocli. */
  public ProbeStatelessCommand() {}

  @Override
  public Integer call() throws Exception {
    if (tool == null) {
      return surface();
    }
    ProbeSpec spec = spec();
    CliRuntime rt = runtime();
    ConfiguredServer target = server.probeable(rt);
    Statelessness statelessness = rt.cotenant().statelessness();
    context().err().println("cotenant: probing " + Output.cell(target.name()) + " with " + Output.cell(tool) + ", "
        + spec.rounds() + " rounds, two callers on one backend process");
    ProbeReport report = statelessness.probe(target.description(), spec);
    return show(report.notRecorded(), report.passed(), report.outcome() == ProbeReport.Outcome.LEAKED,
        () -> json(report), out -> print(out, report));
  }

  /**
   * Prints a report (JSON with {@code --json}), then what could not be recorded on standard
   * error, and returns the exit status.
   */
  private int show(Optional<String> notRecorded, boolean passed, boolean hazard,
      java.util.function.Supplier<ObjectNode> json, java.util.function.Consumer<PrintWriter> text) {
    if (common.json()) {
      Output.json(context().out(), json.get());
    } else {
      text.accept(context().out());
    }
    context().out().flush();
    notRecorded.ifPresent(why -> context().err().println("cotenant: recording failed: " + LogSafe.escape(why, 2000)));
    if (passed) {
      return notRecorded.isPresent() ? EXIT_NOT_RECORDED : Cli.EXIT_OK;
    }
    return hazard ? EXIT_LEAK : EXIT_NOT_PROVEN;
  }

  /**
   * The rounds of a whole-surface probe: {@code given}, else {@link SurfaceProbe#DEFAULT_ROUNDS}.
   *
   * @throws UsageException when fewer than {@link ProbePass#MIN_ROUNDS}
   */
  static int surfaceRounds(Integer given) throws UsageException {
    int n = given == null ? SurfaceProbe.DEFAULT_ROUNDS : given;
    if (n < ProbePass.MIN_ROUNDS) {
      throw new UsageException("refusing a statelessness probe of " + n + " round" + (n == 1 ? "" : "s")
          + ": it needs at least " + ProbePass.MIN_ROUNDS + " (a race that fires once in five rounds is still a leak)");
    }
    return n;
  }

  /** The whole-surface probe. */
  private int surface() throws Exception {
    for (String[] flag : new String[][] {{"--args", args}, {"--read-back-tool", readBackTool}, {"--read-back-args", readBackArgs}}) {
      if (flag[1] != null) {
        throw new UsageException(flag[0] + " needs --tool (the whole-surface probe takes each tool's arguments from its "
            + "inputSchema or from --plan)");
      }
    }
    int n = surfaceRounds(rounds);
    ProbePlan probePlan = plan.read(context());
    CliRuntime rt = runtime();
    ConfiguredServer target = server.probeable(rt);
    SurfaceReport report = probeSurface(rt, target, probePlan, n);
    return show(report.notRecorded(), report.passed(), report.outcome() == SurfaceReport.Outcome.HAZARD,
        () -> SurfaceOutput.json(report), out -> SurfaceOutput.print(out, report));
  }

  /**
   * Runs the whole-surface probe of {@code server} and records its result, after one line on
   * standard error saying what it does.
   */
  static SurfaceReport probeSurface(CliRuntime rt, ConfiguredServer server, ProbePlan plan, int rounds)
      throws InterruptedException {
    rt.context().err().println("cotenant: probing the whole surface of " + Output.cell(server.name()) + ", " + rounds
        + " rounds: two callers on dedicated backends, then on one shared backend, then on dedicated backends again;"
        + " when that passes, the same as clients declaring roots, sampling and elicitation");
    rt.context().err().flush();
    return rt.cotenant().statelessness().probeSurface(server.description(), plan, rounds);
  }

  private ProbeSpec spec() throws UsageException {
    if (readBackArgs != null && readBackTool == null) {
      throw new UsageException("--read-back-args needs --read-back-tool");
    }
    if (args == null) {
      throw new UsageException("--tool needs --args JSON (the tool's arguments, carrying {marker})");
    }
    if (plan.given()) {
      throw new UsageException("--plan applies to the whole-surface probe; with --tool, give --args");
    }
    try {
      ProbeSpec spec = new ProbeSpec(tool, ArgumentTemplate.parse("--args", args), Optional.empty(),
          rounds == null ? ProbeSpec.DEFAULT_ROUNDS : rounds);
      if (readBackTool != null) {
        spec = spec.withReadBack(readBackTool,
            readBackArgs == null ? ArgumentTemplate.empty() : ArgumentTemplate.parse("--read-back-args", readBackArgs));
      }
      return spec;
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The recorded consequence of an outcome, as a reason or hazard code; empty when nothing was recorded. */
  static Optional<String> recorded(ProbeReport r) {
    if (r.notRecorded().isPresent()) {
      return Optional.empty();
    }
    switch (r.outcome()) {
      case PASSED:
        return Optional.of(ReasonCode.STATELESSNESS_PROBE_PASSED.wireName());
      case LEAKED:
        return Optional.of(HazardCode.CROSS_SESSION_LEAK.wireName());
      default:
        return Optional.empty();
    }
  }

  static void print(PrintWriter out, ProbeReport r) {
    if (r.callerBlocks()) {
      out.println("the server declares caller identity: every call carried its caller's block");
    }
    for (Round round : r.rounds()) {
      out.println("round " + round.number() + ": A " + round.markerA() + ", B " + round.markerB());
      for (Assertion a : round.assertions()) {
        out.println("  " + a.name() + ": " + (a.held() ? "held" : "FAILED: " + Output.cell(a.detail())));
      }
    }
    r.notRunReason().ifPresent(why -> out.println("stopped: " + Output.cell(why)));
    String who = Output.cell(r.server());
    boolean recorded = r.notRecorded().isEmpty();
    switch (r.outcome()) {
      case PASSED:
        out.println("passed: " + who + " kept every caller's marker to itself in " + r.rounds().size() + " rounds; "
            + (recorded
                ? "remembered as statelessness_probe_passed under its current identity (one tool: supporting evidence, "
                    + "not enough to register it shared)"
                : "recording the pass failed (see standard error), so it is not remembered"));
        break;
      case LEAKED:
        out.println("LEAKED: one caller saw the other's marker; "
            + (recorded
                ? "recorded cross_session_leak for " + who + " in the hazard ledger under its current identity"
                : "recording it for " + who + " failed (see standard error)"));
        break;
      case NO_OWN_MARKER:
        out.println("not proven: no marker crossed, but a caller did not get its own marker back; nothing recorded");
        break;
      default:
        out.println("not run: " + who + " could not be probed; nothing recorded");
    }
  }

  static ObjectNode json(ProbeReport r) {
    ObjectNode o = Output.object();
    o.put("name", r.server());
    o.put("tool", r.spec().tool());
    r.spec().readBack().ifPresent(rb -> o.put("readBackTool", rb.tool()));
    o.put("callerBlocks", r.callerBlocks());
    o.put("outcome", r.outcome().name().toLowerCase(Locale.ROOT));
    Optional<String> recorded = recorded(r);
    if (recorded.isPresent()) {
      o.put("recorded", recorded.get());
    } else {
      o.putNull("recorded");
    }
    r.notRunReason().ifPresent(why -> o.put("notRunReason", why));
    r.notRecorded().ifPresent(why -> o.put("notRecorded", why));
    ArrayNode rounds = o.putArray("rounds");
    for (Round round : r.rounds()) {
      ObjectNode rn = rounds.addObject();
      rn.put("round", round.number());
      rn.put("markerA", round.markerA());
      rn.put("markerB", round.markerB());
      ArrayNode as = rn.putArray("assertions");
      for (Assertion a : round.assertions()) {
        ObjectNode an = as.addObject();
        an.put("name", a.name());
        an.put("held", a.held());
        an.put("detail", a.detail());
      }
    }
    return o;
  }
}
