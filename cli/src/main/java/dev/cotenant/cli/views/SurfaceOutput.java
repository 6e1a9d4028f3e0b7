package dev.cotenant.cli.views;

import dev.cotenant.api.HazardCode;
import dev.cotenant.gateway.probe.SurfaceReport;
import dev.cotenant.gateway.probe.SurfaceReport.Finding;
import dev.cotenant.gateway.probe.SurfaceReport.ListingResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How {@code probe-stateless} shows a whole-surface report: one block per tool and listing, the
 * traffic, the coverage and the hazards as text; the same as one JSON document with
 * {@code --json}. Every value the server chose is escaped.
 */
public final class SurfaceOutput {
  private SurfaceOutput() {}

  /** Prints {@code r} for people. */
  public static void print(PrintWriter out, SurfaceReport r) {
    out.println("whole-surface probe of " + Output.cell(r.server()) + ": " + r.tools().size() + " tool"
        + (r.tools().size() == 1 ? "" : "s") + " listed, " + r.rounds() + " rounds per caller");
    out.println(Output.cell(r.sandbox().describe()));
    if (r.callerBlocks()) {
      out.println("the server declares caller identity: every request carried its caller's block");
    }
    r.planNotes().forEach(n -> out.println("plan: " + Output.cell(n)));
    r.annotationNotes().forEach(n -> out.println("annotation: " + Output.cell(n)));
    for (ToolResult t : r.tools()) {
      String status = status(t.status());
      out.println("tool " + Output.cell(t.name()) + ": " + status + (t.why().isEmpty() ? "" : ": " + Output.cell(t.why())));
      if (!t.arguments().isEmpty()) {
        out.println("  arguments from " + Output.cell(t.arguments()));
      }
      details(out, t.findings(), t.volatileParts());
    }
    for (ListingResult l : r.listings()) {
      out.println("listing " + l.method() + ": " + (l.leaked() ? "LEAKED" : l.findings().isEmpty() ? "passed" : "not proven"));
      details(out, l.findings(), l.volatileParts());
    }
    out.println("notifications on the shared backend: " + traffic(r.traffic().notifications(), r.traffic().unattributable()));
    out.println("server requests on the shared backend: " + traffic(r.traffic().serverRequests(), r.traffic().unroutable()));
    out.println("coverage: " + r.coverage());
    if (r.passed()) {
      out.println(Output.cell(r.clients().describe()));
    }
    r.notRunReason().ifPresent(why -> out.println("stopped: " + Output.cell(why)));
    String who = Output.cell(r.server());
    boolean recorded = r.notRecorded().isEmpty();
    switch (r.outcome()) {
      case PASSED:
        out.println("passed: " + who + " kept every caller to itself across its whole surface; " + (recorded
            ? "remembered as a whole-surface statelessness_probe_passed under its current identity"
            : "recording the pass failed (see standard error), so it is not remembered"));
        break;
      case HAZARD:
        byWireName(r).forEach((code, detail) -> out.println("hazard " + code + ": " + Output.cell(detail)));
        out.println("HAZARD: " + (recorded
            ? "recorded " + codes(r) + " for " + who + " in the hazard ledger under its current identity"
            : "recording " + codes(r) + " for " + who + " failed (see standard error)"));
        break;
      case NOT_PROVEN:
        out.println("not proven: nothing leaked, but not every tool was exercised; nothing recorded (give the others "
            + "arguments in a plan, or skip them there with a reason)");
        break;
      default:
        out.println("not run: " + who + " could not be probed to the end; nothing recorded");
    }
    out.println("took " + String.format(Locale.ROOT, "%.1f s", r.elapsedMillis() / 1000.0));
  }

  private static void details(PrintWriter out, List<Finding> findings, List<String> volatileParts) {
    for (Finding f : findings) {
      out.println("  " + (f.kind() == SurfaceReport.FindingKind.UNCONFIRMED ? "unconfirmed " : "") + Output.cell(f.toString()));
    }
    for (String v : volatileParts) {
      out.println("  volatile (ignored): " + Output.cell(v));
    }
  }

  private static String status(SurfaceReport.ToolStatus s) {
    switch (s) {
      case PASSED:
        return "passed";
      case LEAKED:
        return "LEAKED";
      case NOT_PROVEN:
        return "not proven";
      case SKIPPED_BY_PLAN:
        return "skipped by plan";
      default:
        return "skipped";
    }
  }

  private static String traffic(Map<String, Integer> all, Map<String, Integer> bad) {
    if (all.isEmpty()) {
      return "none";
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Integer> e : new TreeMap<>(all).entrySet()) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(Output.cell(e.getKey())).append(" x").append(e.getValue());
      Integer n = bad.get(e.getKey());
      if (n != null) {
        sb.append(" (").append(n).append(" unattributable)");
      }
    }
    return sb.toString();
  }

  /** The hazards by wire name, in its order. */
  private static Map<String, String> byWireName(SurfaceReport r) {
    Map<String, String> m = new TreeMap<>();
    r.hazards().forEach((code, detail) -> m.put(code.wireName(), detail));
    return m;
  }

  private static String codes(SurfaceReport r) {
    return String.join(", ", r.hazardCodes().stream().map(HazardCode::wireName).sorted().toList());
  }

  /** The report as one JSON document: what {@code probe-stateless --json} prints, and what the daemon's API answers. */
  public static ObjectNode json(SurfaceReport r) {
    ObjectNode o = Output.object();
    o.put("name", r.server());
    o.put("scope", "whole-surface");
    o.put("rounds", r.rounds());
    o.put("callerBlocks", r.callerBlocks());
    ObjectNode sandbox = o.putObject("sandbox");
    sandbox.put("mode", r.sandbox().sandboxed() ? "sandbox" : "fallback");
    sandbox.put("network", r.sandbox().network());
    sandbox.put("why", r.sandbox().why());
    o.put("outcome", r.outcome().name().toLowerCase(Locale.ROOT));
    ArrayNode hazards = o.putArray("hazards");
    byWireName(r).forEach((code, detail) -> hazards.addObject().put("code", code).put("detail", detail));
    if (r.notRecorded().isEmpty() && r.outcome() == SurfaceReport.Outcome.PASSED) {
      o.put("recorded", "statelessness_probe_passed");
    } else if (r.notRecorded().isEmpty() && r.outcome() == SurfaceReport.Outcome.HAZARD) {
      o.put("recorded", codes(r));
    } else {
      o.putNull("recorded");
    }
    r.notRunReason().ifPresent(why -> o.put("notRunReason", why));
    r.notRecorded().ifPresent(why -> o.put("notRecorded", why));
    o.put("coverage", r.coverage());
    ObjectNode clients = o.putObject("clients");
    ArrayNode declared = clients.putArray("declared");
    r.clients().declared().forEach(declared::add);
    clients.put("covered", r.clients().covered());
    clients.put("why", r.clients().why());
    o.put("exercised", r.exercised().size());
    o.put("listed", r.tools().size());
    o.put("elapsedMillis", r.elapsedMillis());
    ArrayNode tools = o.putArray("tools");
    for (ToolResult t : r.tools()) {
      ObjectNode tn = tools.addObject();
      tn.put("name", t.name());
      tn.put("status", t.status().name().toLowerCase(Locale.ROOT));
      tn.put("why", t.why());
      tn.put("arguments", t.arguments());
      findings(tn, t.findings(), t.volatileParts());
    }
    ArrayNode listings = o.putArray("listings");
    for (ListingResult l : r.listings()) {
      ObjectNode ln = listings.addObject();
      ln.put("method", l.method());
      ln.put("leaked", l.leaked());
      findings(ln, l.findings(), l.volatileParts());
    }
    ObjectNode traffic = o.putObject("traffic");
    counts(traffic.putObject("notifications"), r.traffic().notifications());
    counts(traffic.putObject("unattributable"), r.traffic().unattributable());
    counts(traffic.putObject("serverRequests"), r.traffic().serverRequests());
    counts(traffic.putObject("unroutable"), r.traffic().unroutable());
    ArrayNode notes = o.putArray("planNotes");
    r.planNotes().forEach(notes::add);
    ArrayNode annotations = o.putArray("annotationNotes");
    r.annotationNotes().forEach(annotations::add);
    return o;
  }

  private static void findings(ObjectNode n, List<Finding> findings, List<String> volatileParts) {
    ArrayNode fs = n.putArray("findings");
    for (Finding f : findings) {
      fs.addObject().put("round", f.round()).put("caller", f.caller()).put("kind", f.kind().name().toLowerCase(Locale.ROOT))
          .put("path", f.path()).put("detail", f.detail());
    }
    ArrayNode vs = n.putArray("volatile");
    volatileParts.forEach(vs::add);
  }

  private static void counts(ObjectNode n, Map<String, Integer> counts) {
    new TreeMap<>(counts).forEach(n::put);
  }
}
