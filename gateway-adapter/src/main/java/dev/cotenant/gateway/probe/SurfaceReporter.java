package dev.cotenant.gateway.probe;

import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.FindingKind;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.gateway.probe.SurfaceReport.Traffic;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The report of one whole-surface probe run: every answer on the shared backend scanned for the
 * other caller's marker or workspace value, and compared with the same call's answers on the
 * dedicated backends ({@link AnswerDiff}); each tool's status, each listing's findings, the
 * traffic hazards of the shared backend, and the outcome. Every text shown is redacted
 * ({@link Redactor}). One per report.
 */
final class SurfaceReporter {
  private static final int MAX_FINDINGS = SurfaceProbe.MAX_FINDINGS;

  private final SurfaceRun run;

  SurfaceReporter(SurfaceRun run) {
    this.run = run;
  }

  SurfaceReport report(Optional<String> stopped) {
    Map<String, List<Finding>> findings = new LinkedHashMap<>();
    Map<String, List<String>> volatiles = new LinkedHashMap<>();
    if (run.shared != null) {
      compare(findings, volatiles);
    }
    List<ToolResult> tools = new ArrayList<>();
    Map<String, ToolResult> skipped = new LinkedHashMap<>();
    run.skippedTools.forEach(t -> skipped.put(t.name(), t));
    for (String name : run.listedTools) {
      if (skipped.containsKey(name)) {
        tools.add(skipped.get(name));
        continue;
      }
      PlannedCall p = run.called.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
      String channel = "tools/call " + name;
      List<Finding> f = findings.getOrDefault(channel, List.of());
      List<String> v = volatiles.getOrDefault(channel, List.of());
      tools.add(toolResult(p, f, v, stopped.isPresent()));
    }
    List<ListingResult> listings = new ArrayList<>();
    for (String method : List.of("tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list")) {
      if (findings.containsKey(method) || volatiles.containsKey(method) || seen(method)) {
        List<Finding> f = findings.getOrDefault(method, List.of());
        listings.add(new ListingResult(method, f.stream().anyMatch(SurfaceReporter::observation), f,
            volatiles.getOrDefault(method, List.of())));
      }
    }
    Traffic traffic = run.sharedBackend == null ? Traffic.none() : new Traffic(
        run.sharedBackend.notifications, run.sharedBackend.unattributable, run.sharedBackend.requests, run.sharedBackend.unroutable);
    Map<HazardCode, String> hazards = new EnumMap<>(HazardCode.class);
    Stream.concat(tools.stream().flatMap(t -> t.findings().stream()), listings.stream().flatMap(l -> l.findings().stream()))
        .filter(SurfaceReporter::observation).findFirst()
        .ifPresent(f -> hazards.put(HazardCode.CROSS_SESSION_LEAK, f.detail()));
    if (!traffic.unattributable().isEmpty()) {
      hazards.put(HazardCode.UNATTRIBUTABLE_NOTIFICATION, counts(traffic.unattributable())
          + " on the shared backend, which no caller can be told apart as the owner of");
    }
    if (!traffic.unroutable().isEmpty()) {
      hazards.put(HazardCode.UNROUTABLE_SERVER_REQUEST, counts(traffic.unroutable())
          + " from the shared backend, which cannot be routed to the caller it is for");
    }
    Outcome outcome;
    if (!hazards.isEmpty()) {
      outcome = Outcome.HAZARD;
    } else if (stopped.isPresent()) {
      outcome = Outcome.NOT_RUN;
    } else if (tools.stream().allMatch(t -> t.status() == ToolStatus.PASSED || t.status() == ToolStatus.SKIPPED_BY_PLAN)) {
      outcome = Outcome.PASSED;
    } else {
      outcome = Outcome.NOT_PROVEN;
    }
    List<String> planNotes = run.plan.tools().stream().filter(t -> !run.listedTools.contains(t)).sorted()
        .map(t -> "the plan names " + LogSafe.escape(t, 80) + ", which the server does not list").toList();
    long elapsed = (System.nanoTime() - run.started) / 1_000_000;
    return new SurfaceReport(run.server.name(), run.identity, run.rounds, run.callerBlocks, tools, listings, traffic, hazards, outcome,
        stopped.map(StatelessnessProbe::bounded), Optional.empty(), planNotes, elapsed, run.sandboxing,
        List.copyOf(run.contradicted.values()));
  }

  private boolean seen(String method) {
    return run.shared != null && run.shared.stream().anyMatch(l -> l.answers.keySet().stream().anyMatch(k -> SurfaceRun.channel(k).equals(method)));
  }

  private ToolResult toolResult(PlannedCall p, List<Finding> f, List<String> v, boolean stopped) {
    if (f.stream().anyMatch(SurfaceReporter::observation)) {
      return new ToolResult(p.name(), ToolStatus.LEAKED, "", p.source(), f, v);
    }
    if (run.dropped.containsKey(p.name())) {
      return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, run.dropped.get(p.name()), p.source(), f, v);
    }
    Optional<String> error = dedicatedError(p.name());
    if (error.isPresent()) {
      return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, error.get(), p.source(), f, v);
    }
    if (!f.isEmpty()) {
      return new ToolResult(p.name(), ToolStatus.NOT_PROVEN,
          "its answers differed after the shared backend had lost a call, which proves nothing", p.source(), f, v);
    }
    if (stopped || run.after == null) {
      return new ToolResult(p.name(), ToolStatus.NOT_PROVEN, "the probe stopped before every run was compared",
          p.source(), f, v);
    }
    return new ToolResult(p.name(), ToolStatus.PASSED, "", p.source(), f, v);
  }

  /** Why a tool proved nothing on a dedicated backend: a JSON-RPC error or {@code isError}. */
  private Optional<String> dedicatedError(String tool) {
    if (run.before == null) {
      return Optional.empty();
    }
    for (ProbeLane lane : run.before) {
      for (Map.Entry<String, Map<String, Object>> e : lane.answers.entrySet()) {
        if (!SurfaceRun.channel(e.getKey()).equals("tools/call " + tool)) {
          continue;
        }
        Map<String, Object> answer = e.getValue();
        Object result = answer.get("result");
        if (answer.containsKey("error")) {
          return Optional.of("answered a JSON-RPC error on a dedicated backend: "
              + redact(LogSafe.escape(StatelessnessProbe.toJson(answer.get("error")), 160))
              + "; give it arguments in a plan, or skip it with a reason");
        }
        if (result instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) result).get("isError"))) {
          return Optional.of("answered isError on a dedicated backend: "
              + redact(LogSafe.escape(StatelessnessProbe.toJson(result), 160))
              + "; give it arguments in a plan, or skip it with a reason");
        }
      }
    }
    return Optional.empty();
  }

  /** Marker scan and dedicated-versus-shared comparison of every answer on the shared backend. */
  private void compare(Map<String, List<Finding>> findings, Map<String, List<String>> volatiles) {
    List<ProbeLane> s = Objects.requireNonNull(run.shared);
    for (int i = 0; i < s.size(); i++) {
      ProbeLane lane = s.get(i);
      ProbeCaller other = lane.caller == run.a ? run.b : run.a;
      for (Map.Entry<String, Map<String, Object>> e : lane.answers.entrySet()) {
        String key = e.getKey();
        String channel = SurfaceRun.channel(key);
        int round = Integer.parseInt(key.substring(0, key.indexOf(' ')));
        Object answer = e.getValue();
        Optional<Finding> marker = markerFinding(round, lane.caller, other, channel, answer);
        if (marker.isPresent()) {
          add(findings, channel, marker.get());
          continue;
        }
        if (run.before == null || run.after == null) {
          continue;
        }
        Map<String, Object> d1 = run.before.get(i).answers.get(key);
        Map<String, Object> d2 = run.after.get(i).answers.get(key);
        if (d1 == null || d2 == null) {
          continue;
        }
        AnswerDiff.Comparison c = AnswerDiff.compare(d1, d2, answer);
        Set<AnswerDiff.Place> places = run.volatilePlaces.computeIfAbsent(channel, k -> new LinkedHashSet<>());
        for (AnswerDiff.Place place : c.volatilePlaces()) {
          if (places.size() < AnswerDiff.MAX_PLACES) {
            places.add(place);
          }
        }
        if (!c.volatileParts().isEmpty()) {
          List<String> v = volatiles.computeIfAbsent(channel, k -> new ArrayList<>());
          for (String part : c.volatileParts()) {
            String shown = redact(part);
            if (!v.contains(shown) && v.size() < MAX_FINDINGS) {
              v.add(shown);
            }
          }
        }
        for (AnswerDiff.Difference d : c.differences()) {
          FindingKind kind = run.sharedLostCalls ? FindingKind.UNCONFIRMED : FindingKind.CHANGED_ANSWER;
          add(findings, channel, new Finding(round, lane.caller.label(), kind, d.path(), redact(
              lane.caller.label() + "'s answer to " + what(channel) + " on the shared backend differs from a dedicated "
                  + "backend's at " + d)));
          break;
        }
      }
    }
  }

  private Optional<Finding> markerFinding(int round, ProbeCaller self, ProbeCaller other, String channel, Object answer) {
    String text = StatelessnessProbe.toJson(answer);
    for (String trace : other.traces()) {
      if (text.contains(trace)) {
        String path = locate(answer, trace, "$").orElse("$");
        String kind = trace.startsWith(other.prefix()) ? "marker" : "workspace value";
        return Optional.of(new Finding(round, self.label(), FindingKind.MARKER, path, redact(
            other.label() + "'s " + kind + " " + trace + " appeared in " + self.label() + "'s answer to " + what(channel)
                + " at " + path)));
      }
    }
    return Optional.empty();
  }

  private String redact(String text) {
    return run.redactor.redact(text);
  }

  /** True when a finding is an observation (recorded), not an unconfirmed difference. */
  static boolean observation(Finding f) {
    return f.kind() != FindingKind.UNCONFIRMED;
  }

  private static void add(Map<String, List<Finding>> findings, String channel, Finding f) {
    List<Finding> list = findings.computeIfAbsent(channel, k -> new ArrayList<>());
    if (list.size() < MAX_FINDINGS) {
      list.add(f);
    }
  }

  /** {@code tools/call echo} reads as {@code echo}; a listing as itself. */
  private static String what(String channel) {
    return channel.startsWith("tools/call ") ? channel.substring("tools/call ".length()) : channel;
  }

  /** The path of the first string containing {@code needle}. */
  static Optional<String> locate(@Nullable Object value, String needle, String path) {
    if (value instanceof String) {
      return ((String) value).contains(needle) ? Optional.of(path) : Optional.empty();
    }
    if (value instanceof Map<?, ?>) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        String k = String.valueOf(e.getKey());
        if (k.contains(needle)) {
          return Optional.of(path + "." + k);
        }
        Optional<String> inner = locate(e.getValue(), needle, path + "." + k);
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    if (value instanceof List<?>) {
      List<?> list = (List<?>) value;
      for (int i = 0; i < list.size(); i++) {
        Optional<String> inner = locate(list.get(i), needle, path + "[" + i + "]");
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    return Optional.empty();
  }

  private static String counts(Map<String, Integer> counts) {
    return new TreeMap<>(counts).entrySet().stream().map(e -> e.getKey() + " x" + e.getValue())
        .reduce((x, y) -> x + ", " + y).orElse("");
  }
}
