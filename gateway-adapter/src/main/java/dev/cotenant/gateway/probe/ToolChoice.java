package dev.cotenant.gateway.probe;

import dev.cotenant.api.LogSafe;
import dev.cotenant.gateway.probe.SurfaceReport.ToolResult;
import dev.cotenant.gateway.probe.SurfaceReport.ToolStatus;
import dev.cotenant.spi.SessionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which tools a whole-surface probe run calls, and how: from the first backend's handshake and
 * {@code tools/list}, each listed tool is skipped (by the plan, for the network, for want of a
 * sandbox, for want of arguments) or planned with the plan's arguments or arguments synthesised
 * from its {@code inputSchema} (with the other candidates to try); writers are called before
 * readers. Stateless.
 */
final class ToolChoice {
  private ToolChoice() {}

  /** Lists the tools on the first backend and decides what {@code run} calls, skips, and how. */
  static void decide(SurfaceRun run, ProbeLane lane, LockstepListings listings)
      throws SessionException, InterruptedException {
    Map<String, Object> hs = lane.backend.handshake;
    run.callerMetaKey = run.markers.callerMetaKey(hs);
    run.callerBlocks = run.callerMetaKey.isPresent();
    Object caps = hs.get("capabilities");
    Map<?, ?> capabilities = caps instanceof Map<?, ?> ? (Map<?, ?>) caps : Map.of();
    run.resources = capabilities.containsKey("resources");
    run.prompts = capabilities.containsKey("prompts");
    Map<String, Object> listed = listings.pages(List.of(lane), "tools/list", "tools").get(0);
    List<PlannedCall> plannedCalls = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Object result = listed.get("result");
    List<?> tools = result instanceof Map<?, ?> && ((Map<?, ?>) result).get("tools") instanceof List<?>
        ? (List<?>) ((Map<?, ?>) result).get("tools")
        : List.of();
    if (listed.containsKey("error")) {
      throw new SessionException(SessionException.Kind.GARBAGE,
          "tools/list answered an error: " + LogSafe.escape(StatelessnessProbe.toJson(listed.get("error")), 200));
    }
    for (Object t : tools) {
      if (!(t instanceof Map<?, ?>) || !(((Map<?, ?>) t).get("name") instanceof String)) {
        continue;
      }
      Map<?, ?> tool = (Map<?, ?>) t;
      String name = (String) tool.get("name");
      if (names.contains(name)) {
        continue;
      }
      names.add(name);
      Optional<ProbePlan.Entry> entry = run.plan.entry(name);
      if (entry.isPresent() && entry.get() instanceof ProbePlan.Skip) {
        run.skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED_BY_PLAN, ((ProbePlan.Skip) entry.get()).reason(), "",
            List.of(), List.of()));
        continue;
      }
      if (run.sandboxing.network() && !readOnly(tool)) {
        run.skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED,
            "the plan allows the network, so only tools annotated readOnlyHint: true are called; skip it in the plan"
                + " with a reason", "", List.of(), List.of()));
        continue;
      }
      if (entry.isPresent() && entry.get() instanceof ProbePlan.Arguments) {
        ArgumentTemplate template = ((ProbePlan.Arguments) entry.get()).template();
        plannedCalls.add(new PlannedCall(name, template, "plan " + template, readOnly(tool)));
        continue;
      }
      if (destructive(tool) && entry.isEmpty() && !run.sandboxing.sandboxed()) {
        run.skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED,
            "annotated destructiveHint: true, and no sandbox to call it in (" + run.sandboxing.why()
                + "); include it in a plan (\"include\": true, or \"arguments\") to call it on the operator's own data",
            "", List.of(), List.of()));
        continue;
      }
      Object schema = tool.get("inputSchema");
      @SuppressWarnings("unchecked")
      Map<String, Object> inputSchema = schema instanceof Map<?, ?> ? (Map<String, Object>) schema : Map.of();
      SchemaArguments.Synthesis s = SchemaArguments.synthesize(inputSchema);
      if (s instanceof SchemaArguments.Unsupported) {
        run.skippedTools.add(new ToolResult(name, ToolStatus.SKIPPED, "no arguments could be made from its inputSchema ("
            + ((SchemaArguments.Unsupported) s).why() + "); give them in a plan", "", List.of(), List.of()));
        continue;
      }
      ArgumentTemplate template = ((SchemaArguments.Synthesized) s).template();
      // Other argument sets to try when this one answers an error, each checked against the schema.
      SchemaCheck check = SchemaCheck.of(inputSchema);
      List<ArgumentTemplate> alternatives = SchemaArguments.candidates(inputSchema).stream()
          .filter(c -> !c.equals(template) && check.problem(c).isEmpty()).toList();
      plannedCalls.add(new PlannedCall(name, template, "schema " + template, readOnly(tool), alternatives));
    }
    run.listedTools = List.copyOf(names);
    // Writers before readers: what one caller writes is there when the other reads.
    List<PlannedCall> ordered = new ArrayList<>(plannedCalls.stream().filter(p -> !p.readOnly()).toList());
    ordered.addAll(plannedCalls.stream().filter(PlannedCall::readOnly).toList());
    run.called = List.copyOf(ordered);
  }

  /** Whether {@code tool} is annotated {@code readOnlyHint: true}. */
  static boolean readOnly(Map<?, ?> tool) {
    return hint(tool, "readOnlyHint");
  }

  private static boolean destructive(Map<?, ?> tool) {
    return hint(tool, "destructiveHint");
  }

  private static boolean hint(Map<?, ?> tool, String name) {
    Object annotations = tool.get("annotations");
    return annotations instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) annotations).get(name));
  }
}
