package dev.cotenant.cli;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonRole;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.evaluation.PassResult;
import dev.cotenant.gateway.probe.ProbePlan;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.spi.PreflightResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cotenant share NAME [CONFIG...]}: takes one server from nothing to shared, running only
 * what is missing, in order, and saying at each step what it found:
 *
 * <ol>
 *   <li>{@code assess}: the current verdict; a server that already shares stops here;
 *   <li>{@code measure}, when there is no measurement under the server's current identity;
 *   <li>{@code probe}: the whole-surface statelessness probe, unless a whole-surface pass is on
 *       record under the current identity; a tool the probe could not exercise is named, with the
 *       plan entry that would let it ({@code --plan FILE});
 *   <li>{@code register} as {@code shared}, scope {@code tenant}, {@code maxConcurrent}
 *       {@value #DEFAULT_MAX_CONCURRENT} unless {@code --max-concurrent} says otherwise;
 *   <li>{@code verdict}: the verdict again.
 * </ol>
 *
 * <p>Each step is the same code as its own command ({@link MeasureCommand#pass},
 * {@link ProbeStatelessCommand#probeSurface}, {@link Statelessness#register}). Exit status
 * {@value Cli#EXIT_OK} when the server shares one backend across sessions, {@value #EXIT_REFUTED}
 * when a hazard was observed on it, {@value #EXIT_NOT_SHARED} when it is not shared for another
 * reason (each said on the way).
 */
@Command(
    name = "share",
    description =
        "Take one server from nothing to shared: the current verdict, a measurement when there is none, the "
            + "whole-surface statelessness probe, a registration as shared (maxConcurrent " + ShareCommand.DEFAULT_MAX_CONCURRENT
            + " unless --max-concurrent), and the verdict again, saying at each step what it found. Exit status 0 "
            + "when the server shares, 3 when a hazard refutes it, 4 when it is not shared for another reason.")
public final class ShareCommand extends CliCommand {
  /** A hazard was observed on the server (by this probe or before): it is refuted. */
  public static final int EXIT_REFUTED = 3;

  /** The server is not shared, for a reason other than a hazard (said on the way). */
  public static final int EXIT_NOT_SHARED = 4;

  /**
   * The {@code maxConcurrent} a registration by {@code share} gets unless {@code --max-concurrent}
   * says otherwise: the two calls the whole-surface probe had in flight at once on its shared
   * backend (its callers A and B). A registration then admits no more concurrent calls than the
   * evidence behind it covered; a third call waits for a slot (up to
   * {@code cotenant.sharing.admit-timeout-ms}, 30 s) rather than loading a backend whose capacity
   * nothing measured. Raise it once the server is known to serve more at once.
   */
  public static final int DEFAULT_MAX_CONCURRENT = 2;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Mixin ServerArguments server = new ServerArguments();

  @Option(names = "--max-concurrent", paramLabel = "N",
      description = "The most calls the shared backend serves at once (default " + DEFAULT_MAX_CONCURRENT
          + ": the calls the probe had in flight at once).")
  Integer maxConcurrent;

  @Mixin ProbePlanOption plan = new ProbePlanOption();

  @Option(names = "--rounds", paramLabel = "N", description = "Rounds of the probe (at least 3; default 3).")
  Integer rounds;

  /** Created by picocli. */
  public ShareCommand() {}

  @Override
  public Integer call() throws Exception {
    OptionalInt given = RegisterCommand.maxConcurrent(maxConcurrent);
    int n = ProbeStatelessCommand.surfaceRounds(rounds);
    ProbePlan probePlan = plan.read(context());
    CliRuntime rt = runtime();
    ConfiguredServer target = server.probeable(rt);
    Steps steps = new Steps(rt, target);

    Row row = steps.row();
    steps.add("assess", row.strength().wireName(), "reads " + verdict(row));
    if (row.recommendShare()) {
      return steps.shared(row, "already shares one backend across sessions");
    }
    Optional<Integer> stopped = stop(steps, row);
    if (stopped.isPresent()) {
      return stopped.get();
    }

    PassResult pass = MeasureCommand.pass(rt, List.of(target.description()));
    if (pass.progress().total() == 0) {
      steps.add("measure", "already_measured", "already measured under its current identity; not run again");
    } else {
      PreflightResult measured = pass.attempted().get(target.name());
      row = steps.row();
      if (measured == null || !measured.ran()) {
        String why = measured == null ? "the measurement was cancelled" : measured.notRunReason();
        steps.add("measure", "not_measured", "could not be asked: " + Output.cell(why));
        return steps.notShared(row, EXIT_NOT_SHARED,
            "it could not be started and asked for its handshake; once it can, run share again");
      }
      steps.add("measure", "measured", "now reads " + verdict(row));
      if (row.recommendShare()) {
        return steps.shared(row, "now shares one backend across sessions");
      }
      stopped = stop(steps, row);
      if (stopped.isPresent()) {
        return stopped.get();
      }
    }

    Statelessness statelessness = rt.cotenant().statelessness();
    String identity = statelessness.identityOf(target.description());
    Optional<ProbePass> onRecord = statelessness.record(target.name()).flatMap(ConcurrencyRecord::probe)
        .filter(p -> p.wholeSurface() && p.identity().equals(identity));
    if (onRecord.isPresent()) {
      steps.add("probe", "on_record", "a whole-surface pass is on record under its current identity ("
          + Output.cell(onRecord.get().detail()) + "); not run again");
    } else {
      Optional<Integer> probeStop = probe(steps, ProbeStatelessCommand.probeSurface(rt, target, probePlan, n));
      if (probeStop.isPresent()) {
        return probeStop.get();
      }
    }

    int max = given.orElse(DEFAULT_MAX_CONCURRENT);
    try {
      ConcurrencyRecord stored = statelessness.register(target.description(), ConcurrencyModel.SHARED, ShareScope.TENANT,
          OptionalInt.of(max));
      steps.add("register", "registered", RegisterCommand.text(stored)
          + (given.isEmpty() ? "; maxConcurrent " + max + " is the default (--max-concurrent N changes it)" : ""))
          .set("record", RegisterCommand.json(stored));
    } catch (RegistrationRefusedException e) {
      steps.add("register", "refused", Output.cell(e.getMessage()));
      row = steps.row();
      return steps.notShared(row, row.strength() == Strength.REFUTED ? EXIT_REFUTED : EXIT_NOT_SHARED,
          "its registration was refused (above)");
    }

    row = steps.row();
    steps.add("verdict", row.strength().wireName(), "now reads " + verdict(row));
    if (row.recommendShare()) {
      return steps.shared(row, "now shares one backend across sessions");
    }
    return steps.notShared(row, row.strength() == Strength.REFUTED ? EXIT_REFUTED : EXIT_NOT_SHARED,
        "its verdict does not recommend sharing: " + verdict(row) + (onRecord.isEmpty() ? "" : "; the pass on record "
            + "may not cover the tools it lists now: probe it again (cotenant probe-stateless " + Output.cell(target.name())
            + "), then run share again"));
  }

  /** Where a verdict stops the way to sharing before anything is spawned: refuted or disqualified. */
  private static Optional<Integer> stop(Steps steps, Row row) {
    if (row.strength() == Strength.REFUTED) {
      return Optional.of(steps.notShared(row, EXIT_REFUTED, "a hazard was observed under its current launch identity ("
          + reasons(row, ReasonRole.OBSERVATION) + "); see `cotenant hazards list`, and once the server is fixed (a new "
          + "build is a new identity) run share again"));
    }
    if (row.strength() == Strength.DISQUALIFIED) {
      return Optional.of(steps.notShared(row, EXIT_NOT_SHARED, "it cannot share a backend ("
          + reasons(row, ReasonRole.DISQUALIFYING_FACT) + ")"));
    }
    return Optional.empty();
  }

  /** The probe's step; a status to exit with unless it passed and was recorded. */
  private Optional<Integer> probe(Steps steps, SurfaceReport report) {
    String took = String.format(Locale.ROOT, "%.1f s", report.elapsedMillis() / 1000.0);
    switch (report.outcome()) {
      case PASSED:
        if (report.notRecorded().isPresent()) {
          steps.add("probe", "not_recorded", "passed (" + report.coverage() + "), but the pass could not be recorded: "
              + Output.cell(report.notRecorded().get()));
          return Optional.of(steps.notShared(steps.row(), EXIT_NOT_SHARED,
              "its probe passed but could not be recorded, and a registration needs it on record"));
        }
        steps.add("probe", "passed", "passed: " + report.coverage() + ", " + report.rounds()
            + " rounds, nothing crossed between two callers on one backend (" + took + ")");
        return Optional.empty();
      case HAZARD:
        String found = report.hazards().entrySet().stream()
            .map(e -> e.getKey().wireName() + ": " + Output.cell(e.getValue()))
            .sorted().collect(Collectors.joining("; "));
        ObjectNode step = steps.add("probe", "hazard", "HAZARD " + found + (report.notRecorded().isPresent()
            ? " (recording it failed: " + Output.cell(report.notRecorded().get()) + ")" : "; recorded in the hazard ledger"));
        ArrayNode hazards = step.putArray("hazards");
        report.hazards().forEach((code, detail) -> hazards.addObject().put("code", code.wireName()).put("detail", detail));
        return Optional.of(steps.notShared(steps.row(), EXIT_REFUTED, "the whole-surface probe saw " + found));
      case NOT_PROVEN:
        return Optional.of(needsPlan(steps, report));
      default:
        steps.add("probe", "not_run", "not run: " + Output.cell(report.notRunReason().orElse("it could not be probed to the end")));
        return Optional.of(steps.notShared(steps.row(), EXIT_NOT_SHARED, "it could not be probed to the end"));
    }
  }

  /** A probe that proved nothing: which tools a plan must speak for, and how. */
  private int needsPlan(Steps steps, SurfaceReport report) {
    List<ToolResult> open = report.tools().stream()
        .filter(t -> t.status() == ToolStatus.SKIPPED || t.status() == ToolStatus.NOT_PROVEN).toList();
    ObjectNode suggested = Output.object();
    ObjectNode tools = suggested.putObject("tools");
    List<String> lines = new ArrayList<>();
    for (ToolResult t : open) {
      lines.add(Output.cell(t.name()) + ": " + (t.status() == ToolStatus.SKIPPED ? "skipped" : "not proven") + ": "
          + Output.cell(t.why()));
      tools.set(t.name(), planEntry(t));
    }
    lines.add("write a plan FILE like this one, one entry per tool above:");
    lines.add("  " + Output.cell(Output.text(suggested)));
    lines.add("(\"include\": true calls a destructive tool, with no sandbox on the data its configuration points at; "
        + "\"arguments\": {...} gives arguments that work, {marker}, {workspace} and {scratch} filled in per caller; "
        + "\"skip\": \"why\" leaves a tool out, and the registration names it: docs/statelessness.md)");
    ObjectNode step = steps.add("probe", "not_proven", "not proven: nothing leaked, but " + report.coverage()
        + "; a plan must speak for " + (open.size() == 1 ? "this tool" : "these " + open.size() + " tools") + ":", lines);
    ArrayNode needs = step.putArray("needsPlan");
    open.forEach(t -> needs.addObject().put("tool", t.name()).put("status", t.status().name().toLowerCase(Locale.ROOT))
        .put("why", t.why()));
    step.set("plan", suggested);
    return steps.notShared(steps.row(), EXIT_NOT_SHARED, "not every tool was exercised; with the plan written, run: "
        + "cotenant share " + Output.cell(server.name()) + " --plan FILE" + server.configs().stream().map(c -> " " + Output.cell(c)).collect(Collectors.joining()));
  }

  /**
   * The plan entry to suggest for a tool the probe did not exercise: {@code include} for a
   * destructive tool skipped for want of a sandbox, a {@code skip} to justify for a tool the plan's
   * network setting left out, and otherwise {@code arguments}, starting from those the probe tried.
   */
  private static ObjectNode planEntry(ToolResult t) {
    ObjectNode entry = Output.object();
    if (t.status() == ToolStatus.SKIPPED && t.why().contains("destructiveHint")) {
      return entry.put("include", true);
    }
    if (t.status() == ToolStatus.SKIPPED && t.why().contains("network")) {
      return entry.put("skip", "why calling it cannot show one session another's state");
    }
    int brace = t.arguments().indexOf('{');
    JsonNode tried = null;
    if (brace >= 0) {
      try {
        tried = JSON.readTree(t.arguments().substring(brace));
      } catch (JacksonException e) {
        tried = null;
      }
    }
    entry.set("arguments", tried != null && tried.isObject() ? tried : Output.object());
    return entry;
  }

  /** {@code STRENGTH (reason, reason(detail), ...)}. */
  static String verdict(Row row) {
    return row.strength().wireName() + (row.reasons().isEmpty() ? ""
        : " (" + row.reasons().stream().map(Output::reason).collect(Collectors.joining(", ")) + ")");
  }

  private static String reasons(Row row, ReasonRole role) {
    return row.reasons().stream().filter(r -> r.code().role() == role).map(Output::reason).collect(Collectors.joining(", "));
  }

  /**
   * The steps as they happen: one line each on standard output ({@code STEP: what it found}), or,
   * with {@code --json}, one document at the end, {@code {"name","shared","message","steps":[{"step",
   * "result","message",...}],"server":ROW}}.
   */
  private final class Steps {
    private final CliRuntime rt;
    private final ConfiguredServer target;
    private final ObjectNode root = Output.object();
    private final ArrayNode list;

    Steps(CliRuntime rt, ConfiguredServer target) {
      this.rt = rt;
      this.target = target;
      root.put("name", target.name());
      list = root.putArray("steps");
    }

    /** The server's row from the records as they are now. */
    Row row() {
      return rt.rows(List.of(target)).get(0);
    }

    ObjectNode add(String step, String result, String message) {
      return add(step, result, message, List.of());
    }

    /** Says one step: its line, then {@code more} indented under it. */
    ObjectNode add(String step, String result, String message, List<String> more) {
      ObjectNode o = list.addObject().put("step", step).put("result", result).put("message", message);
      if (!common.json()) {
        rt.context().out().println(step + ": " + message);
        more.forEach(line -> rt.context().out().println("  " + line));
        rt.context().out().flush();
      }
      return o;
    }

    int shared(Row row, String how) {
      return end(row, true, Output.cell(target.name()) + " " + how, Cli.EXIT_OK);
    }

    int notShared(Row row, int status, String why) {
      return end(row, false, Output.cell(target.name()) + " is not shared: " + why, status);
    }

    private int end(Row row, boolean shared, String message, int status) {
      if (common.json()) {
        root.put("shared", shared);
        root.put("message", message);
        root.set("server", Output.rowsJson(List.of(row),
            Optional.of(SharingSettings.fromConfig(rt.cotenant().config()))).path("servers").path(0));
        Output.json(rt.context().out(), root);
      } else {
        rt.context().out().println(message);
      }
      return status;
    }
  }
}
