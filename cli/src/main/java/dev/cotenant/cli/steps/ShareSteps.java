package dev.cotenant.cli.steps;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonRole;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.RegisterView;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.evaluation.MeasureJob;
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
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The steps of {@code cotenant share NAME} (see {@link dev.cotenant.cli.ShareCommand}), run by the command and by
 * the daemon's {@code POST /api/share} alike: the current verdict, a measurement when there is
 * none under the server's current identity, the whole-surface statelessness probe unless a pass
 * is on record, a registration as {@code shared}, and the verdict again. Each step is said to a
 * {@link Surface} as soon as it is done; the outcome is the document {@code share --json} prints.
 *
 * <p>What differs between the command and the daemon (how rows are labelled, how a measurement is
 * followed, what is said before the probe, where each step's line goes) is the {@link Surface}'s.
 * One run at a time per instance; not thread-safe.
 */
public final class ShareSteps {
  /** The exit status of a run that left the server shared (the CLI's success). */
  public static final int SHARED = 0;

  /** The exit status when a hazard was observed on the server (by this probe or before): it is refuted. */
  public static final int REFUTED = 3;

  /** The exit status when the server is not shared, for a reason other than a hazard (said on the way). */
  public static final int NOT_SHARED = 4;

  /**
   * The {@code maxConcurrent} a registration by the steps gets unless told otherwise: the two calls
   * the whole-surface probe had in flight at once on its shared backend (its callers A and B). A
   * registration then admits no more concurrent calls than the evidence behind it covered; a third
   * call waits for a slot (up to {@code cotenant.sharing.admit-timeout-ms}, 30 s) rather than
   * loading a backend whose capacity nothing measured. Raise it once the server is known to serve
   * more at once.
   */
  public static final int DEFAULT_MAX_CONCURRENT = 2;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** What the steps run on and say to: the command's terminal, or the daemon's job. */
  public interface Surface {
    /** The row of {@code server} from the records as they are now. */
    Row row(ConfiguredServer server);

    /**
     * Measures {@code server} when it has no measurement under its current identity (an
     * uncapped pass of one server; a pass whose progress totals 0 measured nothing).
     */
    PassResult measure(ServerDescription server) throws InterruptedException, MeasureJob.JobFailedException;

    /** Runs the whole-surface probe of {@code server} and records its result. */
    SurfaceReport probe(ConfiguredServer server, ProbePlan plan, int rounds) throws InterruptedException;

    /**
     * One step, done: {@code step} is its JSON ({@code {"step","result","message",...}}, complete),
     * {@code more} the lines a person reads under {@code STEP: message}.
     */
    void said(ObjectNode step, List<String> more);
  }

  /**
   * How a run ended.
   *
   * @param status the exit status of {@code share}: {@link #SHARED} when shared,
   *     {@link #REFUTED} when a hazard refutes it, {@link #NOT_SHARED}
   * @param shared whether the server now shares one backend across sessions
   * @param message the last line
   * @param row the server's row at the end
   * @param json {@code {"name","steps":[...],"shared","message","server":ROW}}, as {@code share --json} prints it
   */
  public record Outcome(int status, boolean shared, String message, Row row, ObjectNode json) {
    /** Checks the parts. */
    public Outcome {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(row, "row");
      Objects.requireNonNull(json, "json");
    }
  }

  private final Cotenant cotenant;
  private final ConfiguredServer target;
  private final Surface surface;
  private final SharingSettings settings;
  private final String withPlan;
  private final ObjectNode root = Output.object();
  private final ArrayNode list;

  /**
   * @param cotenant the runtime (records, probe, registration)
   * @param target the server, enabled
   * @param surface what the steps run on and say to
   * @param settings the sharing settings the final row's placement is read under
   * @param withPlan the command that runs {@code share} again with a plan, for a probe that proved
   *     nothing ({@code cotenant share NAME --plan FILE CONFIG...})
   */
  public ShareSteps(Cotenant cotenant, ConfiguredServer target, Surface surface, SharingSettings settings, String withPlan) {
    this.cotenant = Objects.requireNonNull(cotenant, "cotenant");
    this.target = Objects.requireNonNull(target, "target");
    this.surface = Objects.requireNonNull(surface, "surface");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.withPlan = Objects.requireNonNull(withPlan, "withPlan");
    root.put("name", target.name());
    list = root.putArray("steps");
  }

  /**
   * Runs what is missing, in order, saying each step as it is done.
   *
   * @param plan the probe's plan ({@link ProbePlan#empty()} for none)
   * @param rounds the probe's rounds, at least {@value ProbePass#MIN_ROUNDS}
   * @param maxConcurrent the registration's {@code maxConcurrent}; empty: {@value #DEFAULT_MAX_CONCURRENT}
   * @throws java.io.IOException when the registration cannot be written
   */
  public Outcome run(ProbePlan plan, int rounds, OptionalInt maxConcurrent)
      throws InterruptedException, MeasureJob.JobFailedException, java.io.IOException {
    Row row = surface.row(target);
    say(step("assess", row.strength().wireName(), "reads " + verdict(row)));
    if (row.recommendShare()) {
      return shared(row, "already shares one backend across sessions");
    }
    Optional<Outcome> stopped = stop(row);
    if (stopped.isPresent()) {
      return stopped.get();
    }

    PassResult pass = surface.measure(target.description());
    if (pass.progress().total() == 0) {
      say(step("measure", "already_measured", "already measured under its current identity; not run again"));
    } else {
      PreflightResult measured = pass.attempted().get(target.name());
      row = surface.row(target);
      if (measured == null || !measured.ran()) {
        String why = measured == null ? "the measurement was cancelled" : measured.notRunReason();
        say(step("measure", "not_measured", "could not be asked: " + Output.cell(why)));
        return notShared(row, NOT_SHARED,
            "it could not be started and asked for its handshake; once it can, run share again");
      }
      say(step("measure", "measured", "now reads " + verdict(row)));
      if (row.recommendShare()) {
        return shared(row, "now shares one backend across sessions");
      }
      stopped = stop(row);
      if (stopped.isPresent()) {
        return stopped.get();
      }
    }

    Statelessness statelessness = cotenant.statelessness();
    String identity = statelessness.identityOf(target.description());
    Optional<ProbePass> onRecord = statelessness.record(target.name()).flatMap(ConcurrencyRecord::probe)
        .filter(p -> p.wholeSurface() && p.identity().equals(identity));
    if (onRecord.isPresent()) {
      say(step("probe", "on_record", "a whole-surface pass is on record under its current identity ("
          + Output.cell(onRecord.get().detail()) + "); not run again"));
    } else {
      Optional<Outcome> probeStop = probe(surface.probe(target, plan, rounds));
      if (probeStop.isPresent()) {
        return probeStop.get();
      }
    }

    int max = maxConcurrent.orElse(DEFAULT_MAX_CONCURRENT);
    try {
      ConcurrencyRecord stored = statelessness.register(target.description(), ConcurrencyModel.SHARED, ShareScope.TENANT,
          OptionalInt.of(max));
      ObjectNode step = step("register", "registered", RegisterView.text(stored)
          + (maxConcurrent.isEmpty() ? "; maxConcurrent " + max + " is the default (--max-concurrent N changes it)" : ""));
      step.set("record", RegisterView.json(stored));
      say(step);
    } catch (RegistrationRefusedException e) {
      say(step("register", "refused", Output.cell(String.valueOf(e.getMessage()))));
      row = surface.row(target);
      return notShared(row, row.strength() == Strength.REFUTED ? REFUTED : NOT_SHARED,
          "its registration was refused (above)");
    }

    row = surface.row(target);
    say(step("verdict", row.strength().wireName(), "now reads " + verdict(row)));
    if (row.recommendShare()) {
      return shared(row, "now shares one backend across sessions");
    }
    return notShared(row, row.strength() == Strength.REFUTED ? REFUTED : NOT_SHARED,
        "its verdict does not recommend sharing: " + verdict(row) + (onRecord.isEmpty() ? "" : "; the pass on record "
            + "may not cover the tools it lists now: probe it again (cotenant probe-stateless " + Output.cell(target.name())
            + "), then run share again"));
  }

  /** Where a verdict stops the way to sharing before anything is spawned: refuted or disqualified. */
  private Optional<Outcome> stop(Row row) {
    if (row.strength() == Strength.REFUTED) {
      return Optional.of(notShared(row, REFUTED, "a hazard was observed under its current launch identity ("
          + reasons(row, ReasonRole.OBSERVATION) + "); see `cotenant hazards list`, and once the server is fixed (a new "
          + "build is a new identity) run share again"));
    }
    if (row.strength() == Strength.DISQUALIFIED) {
      return Optional.of(notShared(row, NOT_SHARED, "it cannot share a backend ("
          + reasons(row, ReasonRole.DISQUALIFYING_FACT) + ")"));
    }
    return Optional.empty();
  }

  /** The probe's step; the outcome to end with unless it passed and was recorded. */
  private Optional<Outcome> probe(SurfaceReport report) {
    String took = String.format(Locale.ROOT, "%.1f s", report.elapsedMillis() / 1000.0);
    switch (report.outcome()) {
      case PASSED:
        if (report.notRecorded().isPresent()) {
          say(step("probe", "not_recorded", "passed (" + report.coverage() + "), but the pass could not be recorded: "
              + Output.cell(report.notRecorded().get())));
          return Optional.of(notShared(surface.row(target), NOT_SHARED,
              "its probe passed but could not be recorded, and a registration needs it on record"));
        }
        say(step("probe", "passed", "passed: " + report.coverage() + ", " + report.rounds()
            + " rounds, nothing crossed between two callers on one backend (" + took + "); "
            + Output.cell(report.clients().describe())));
        return Optional.empty();
      case HAZARD:
        String found = report.hazards().entrySet().stream()
            .map(e -> e.getKey().wireName() + ": " + Output.cell(e.getValue()))
            .sorted().collect(Collectors.joining("; "));
        ObjectNode step = step("probe", "hazard", "HAZARD " + found + (report.notRecorded().isPresent()
            ? " (recording it failed: " + Output.cell(report.notRecorded().get()) + ")" : "; recorded in the hazard ledger"));
        ArrayNode hazards = step.putArray("hazards");
        report.hazards().forEach((code, detail) -> hazards.addObject().put("code", code.wireName()).put("detail", detail));
        say(step);
        return Optional.of(notShared(surface.row(target), REFUTED, "the whole-surface probe saw " + found));
      case NOT_PROVEN:
        return Optional.of(needsPlan(report));
      default:
        say(step("probe", "not_run", "not run: " + Output.cell(report.notRunReason().orElse("it could not be probed to the end"))));
        return Optional.of(notShared(surface.row(target), NOT_SHARED, "it could not be probed to the end"));
    }
  }

  /** A probe that proved nothing: which tools a plan must speak for, and how. */
  private Outcome needsPlan(SurfaceReport report) {
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
    ObjectNode step = step("probe", "not_proven", "not proven: nothing leaked, but " + report.coverage()
        + "; a plan must speak for " + (open.size() == 1 ? "this tool" : "these " + open.size() + " tools") + ":");
    ArrayNode needs = step.putArray("needsPlan");
    open.forEach(t -> needs.addObject().put("tool", t.name()).put("status", t.status().name().toLowerCase(Locale.ROOT))
        .put("why", t.why()));
    step.set("plan", suggested);
    say(step, lines);
    return notShared(surface.row(target), NOT_SHARED,
        "not every tool was exercised; with the plan written, run: " + withPlan);
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

  private static ObjectNode step(String step, String result, String message) {
    return Output.object().put("step", step).put("result", result).put("message", message);
  }

  private void say(ObjectNode step) {
    say(step, List.of());
  }

  /** Adds a finished step to the document and says it. */
  private void say(ObjectNode step, List<String> more) {
    list.add(step);
    surface.said(step, more);
  }

  private Outcome shared(Row row, String how) {
    return end(row, true, Output.cell(target.name()) + " " + how, SHARED);
  }

  private Outcome notShared(Row row, int status, String why) {
    return end(row, false, Output.cell(target.name()) + " is not shared: " + why, status);
  }

  private Outcome end(Row row, boolean shared, String message, int status) {
    root.put("shared", shared);
    root.put("message", message);
    root.set("server", Output.rowsJson(List.of(row), Optional.of(settings)).path("servers").path(0));
    return new Outcome(status, shared, message, row, root);
  }
}
