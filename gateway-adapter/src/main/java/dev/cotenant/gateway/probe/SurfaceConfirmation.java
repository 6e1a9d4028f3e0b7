package dev.cotenant.gateway.probe;

import dev.cotenant.api.HazardCode;
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
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The replay of a whole-surface probe: whether a first run needs one ({@link #needsReplay}), and
 * the report both runs confirm ({@link #confirm}). A changed answer without a marker may be chance
 * (a random figure that happened to agree in both dedicated runs): it counts only if a replay, with
 * fresh markers and fresh backends, shows the same tool or listing change again at the same
 * place, and neither run's dedicated backends disagree there. Stateless.
 */
final class SurfaceConfirmation {
  private static final int MAX_FINDINGS = SurfaceProbe.MAX_FINDINGS;

  private SurfaceConfirmation() {}

  /**
   * Where each run's dedicated backends disagreed, by tool or listing ({@code tools/call NAME} for
   * a tool), in any round and for either caller: four dedicated answers per call in all.
   */
  record Volatility(Map<String, Set<AnswerDiff.Place>> first, Map<String, Set<AnswerDiff.Place>> replay) {
    static final Volatility NONE = new Volatility(Map.of(), Map.of());

    /** True when {@code f}'s place varies between dedicated backends in {@code places}. */
    static boolean varies(Map<String, Set<AnswerDiff.Place>> places, String channel, Finding f) {
      int token = token(f);
      return places.getOrDefault(channel, Set.of()).stream().anyMatch(p -> p.covers(f.path(), token));
    }
  }

  /** True when some changed answer is the only sign of a leak on its tool or listing. */
  static boolean needsReplay(SurfaceReport r) {
    return channels(r).values().stream().anyMatch(f -> onlyChanged(f));
  }

  /** Every tool's and listing's findings, by name ({@code tools/call NAME} for a tool). */
  private static Map<String, List<Finding>> channels(SurfaceReport r) {
    Map<String, List<Finding>> out = new LinkedHashMap<>();
    r.tools().forEach(t -> out.put("tools/call " + t.name(), t.findings()));
    r.listings().forEach(l -> out.put(l.method(), l.findings()));
    return out;
  }

  private static boolean onlyChanged(List<Finding> findings) {
    return findings.stream().anyMatch(f -> f.kind() == FindingKind.CHANGED_ANSWER)
        && findings.stream().noneMatch(f -> f.kind() == FindingKind.MARKER);
  }

  /**
   * The report of a probe whose first run showed changed answers, confirmed by its replay: a
   * marker in either run is an observation; a changed answer is one only where both runs changed
   * the same tool or listing at the same place (path), and is otherwise reported among the
   * volatile parts as differing once and not on replay. Statuses other than leaked take the worse of the two runs; traffic hazards
   * of either run stand; times add up.
   */
  static SurfaceReport confirm(SurfaceReport first, SurfaceReport replay) {
    return confirm(first, replay, Volatility.NONE);
  }

  /**
   * {@link #confirm(SurfaceReport, SurfaceReport)}, where a changed answer also counts only at a
   * place where neither run's dedicated backends disagreed: a value drawn at random per process
   * or per call agrees in two dedicated answers by chance, hardly in all four.
   */
  static SurfaceReport confirm(SurfaceReport first, SurfaceReport replay, Volatility volatility) {
    Map<String, List<Finding>> before = channels(first);
    List<ToolResult> tools = new ArrayList<>();
    for (ToolResult t : replay.tools()) {
      String channel = "tools/call " + t.name();
      List<Finding> earlier = before.getOrDefault(channel, List.of());
      Optional<ToolResult> firstResult = first.tools().stream().filter(x -> x.name().equals(t.name())).findFirst();
      Confirmation c = new Confirmation(channel, earlier, t.findings(), volatility);
      List<Finding> kept = c.kept();
      List<String> volatileParts = c.volatileParts(t.volatileParts());
      ToolStatus status;
      String why = t.why();
      if (kept.stream().anyMatch(SurfaceReporter::observation)) {
        status = ToolStatus.LEAKED;
        why = "";
      } else if (t.status() == ToolStatus.LEAKED && firstResult.map(x -> x.status() == ToolStatus.LEAKED).orElse(false)
          && !c.explained()) {
        status = ToolStatus.NOT_PROVEN;
        why = "its answers on the shared backend changed in both runs, but not in the same way; not confirmed";
      } else if (t.status() == ToolStatus.NOT_PROVEN || firstResult.map(x -> x.status() == ToolStatus.NOT_PROVEN).orElse(false)) {
        status = ToolStatus.NOT_PROVEN;
        why = t.status() == ToolStatus.NOT_PROVEN ? t.why() : firstResult.get().why();
      } else if (t.status() == ToolStatus.LEAKED) {
        // Changed only where dedicated backends disagree too, or in the first run only.
        status = firstResult.map(x -> x.status() == ToolStatus.LEAKED ? ToolStatus.PASSED : x.status())
            .orElse(ToolStatus.NOT_PROVEN);
        why = firstResult.map(x -> x.status() == ToolStatus.LEAKED ? "" : x.why()).orElse("it was listed in the replay only");
      } else {
        status = t.status();
      }
      tools.add(new ToolResult(t.name(), status, why, t.arguments(), kept, volatileParts));
    }
    List<ListingResult> listings = new ArrayList<>();
    for (ListingResult l : replay.listings()) {
      List<Finding> earlier = before.getOrDefault(l.method(), List.of());
      Confirmation c = new Confirmation(l.method(), earlier, l.findings(), volatility);
      List<Finding> kept = c.kept();
      listings.add(new ListingResult(l.method(), kept.stream().anyMatch(SurfaceReporter::observation), kept,
          c.volatileParts(l.volatileParts())));
    }
    Map<HazardCode, String> hazards = new EnumMap<>(HazardCode.class);
    Stream.concat(tools.stream().flatMap(t -> t.findings().stream()), listings.stream().flatMap(l -> l.findings().stream()))
        .filter(SurfaceReporter::observation).findFirst()
        .ifPresent(f -> hazards.put(HazardCode.CROSS_SESSION_LEAK, f.detail()));
    for (SurfaceReport r : List.of(first, replay)) {
      r.hazards().forEach((code, detail) -> {
        if (code != HazardCode.CROSS_SESSION_LEAK) {
          hazards.putIfAbsent(code, detail);
        }
      });
    }
    Optional<String> stopped = replay.notRunReason().or(first::notRunReason);
    Outcome outcome;
    if (!hazards.isEmpty()) {
      outcome = Outcome.HAZARD;
    } else if (stopped.isPresent()) {
      outcome = Outcome.NOT_RUN;
    } else if (tools.stream().allMatch(t -> t.status() == ToolStatus.PASSED || t.status() == ToolStatus.SKIPPED_BY_PLAN)
        && listings.stream().allMatch(l -> l.findings().isEmpty())) {
      outcome = Outcome.PASSED;
    } else {
      outcome = Outcome.NOT_PROVEN;
    }
    Traffic traffic = first.traffic().notifications().isEmpty() && first.traffic().serverRequests().isEmpty()
        ? replay.traffic() : first.traffic();
    return new SurfaceReport(replay.server(), replay.identity(), replay.rounds(), replay.callerBlocks(), tools, listings,
        traffic, hazards, outcome, stopped, Optional.empty(), replay.planNotes(),
        first.elapsedMillis() + replay.elapsedMillis(), replay.sandbox(),
        Stream.concat(first.annotationNotes().stream(), replay.annotationNotes().stream()).distinct().toList());
  }

  /** Where in a text a changed answer was seen: {@code (token 5 of 9)}, as the difference names it. */
  private static final Pattern TOKEN = Pattern.compile("\\((?:after )?token (\\d+) of \\d+\\)");

  /** The place of a changed answer: its path, and within a text the token. */
  private static String place(Finding f) {
    Matcher m = TOKEN.matcher(f.detail());
    return f.path() + (m.find() ? " " + m.group() : "");
  }

  /** The 1-based token a changed answer names, or 0. */
  private static int token(Finding f) {
    Matcher m = TOKEN.matcher(f.detail());
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  /** One tool's or listing's findings in both runs, and what counts of them. */
  private static final class Confirmation {
    final List<Finding> first;
    final List<Finding> replay;
    /** Changed answers at a place the other run's (or its own run's) dedicated backends disagreed on. */
    final Set<Finding> varying = new LinkedHashSet<>();
    final boolean confirmed;

    Confirmation(String channel, List<Finding> first, List<Finding> replay, Volatility volatility) {
      this.first = first;
      this.replay = replay;
      for (Finding f : first) {
        if (f.kind() == FindingKind.CHANGED_ANSWER && (Volatility.varies(volatility.replay(), channel, f)
            || Volatility.varies(volatility.first(), channel, f))) {
          varying.add(f);
        }
      }
      for (Finding g : replay) {
        if (g.kind() == FindingKind.CHANGED_ANSWER && (Volatility.varies(volatility.first(), channel, g)
            || Volatility.varies(volatility.replay(), channel, g))) {
          varying.add(g);
        }
      }
      // Both runs changed the answer at the same place, where no dedicated backend of either run
      // disagreed: a counter or a toggle changes where it is every time; a figure that happened
      // to agree in two dedicated runs almost never does so twice, let alone in all four.
      this.confirmed = first.stream().filter(f -> f.kind() == FindingKind.CHANGED_ANSWER && !varying.contains(f))
          .anyMatch(f -> replay.stream().anyMatch(g -> g.kind() == FindingKind.CHANGED_ANSWER && !varying.contains(g)
              && place(g).equals(place(f))));
    }

    /** True when every changed answer of both runs lies where dedicated backends disagree too. */
    boolean explained() {
      return Stream.concat(first.stream(), replay.stream())
          .allMatch(f -> f.kind() != FindingKind.CHANGED_ANSWER || varying.contains(f));
    }

    /** Markers of either run; changed answers only when confirmed; the replay's unconfirmed. */
    List<Finding> kept() {
      List<Finding> out = new ArrayList<>();
      for (Finding f : Stream.concat(first.stream(), replay.stream()).toList()) {
        boolean keep = f.kind() == FindingKind.MARKER
            || (f.kind() == FindingKind.CHANGED_ANSWER && confirmed && !varying.contains(f))
            || (f.kind() == FindingKind.UNCONFIRMED && replay.contains(f));
        if (keep && out.size() < MAX_FINDINGS) {
          out.add(f);
        }
      }
      return out;
    }

    /** The replay's volatile parts, and each changed answer that was not confirmed, with why. */
    List<String> volatileParts(List<String> replayVolatile) {
      List<String> out = new ArrayList<>(replayVolatile);
      for (Finding f : Stream.concat(first.stream(), replay.stream()).toList()) {
        if (f.kind() != FindingKind.CHANGED_ANSWER || (confirmed && !varying.contains(f)) || out.size() >= MAX_FINDINGS * 2) {
          continue;
        }
        String why = varying.contains(f) ? "where dedicated backends disagree too" : "not on replay";
        out.add(place(f) + ": differed once on the shared backend (round " + f.round() + ", " + f.caller() + "), " + why);
      }
      return out;
    }
  }
}
