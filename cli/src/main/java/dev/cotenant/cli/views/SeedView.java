package dev.cotenant.cli.views;

import dev.cotenant.spi.SeedPlan;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON of a seed plan, planned or applied: {@code seed --json}'s and the API's {@code /api/seed}. Stateless. */
public final class SeedView {
  private SeedView() {}

  /**
   * {@code {"config","applied","stubOverrides":{name:bool},"wantsShare":[...],"alreadySeeded":[...]}}:
   * what {@code --json} prints, and what the daemon's API answers.
   */
  public static ObjectNode json(String config, boolean applied, SeedPlan plan) {
    ObjectNode o = Output.object();
    o.put("config", config);
    o.put("applied", applied);
    ObjectNode overrides = o.putObject("stubOverrides");
    new TreeMap<>(plan.stubOverrides()).forEach(overrides::put);
    ArrayNode wants = o.putArray("wantsShare");
    new TreeSet<>(plan.wantsShare()).forEach(wants::add);
    ArrayNode already = o.putArray("alreadySeeded");
    new TreeSet<>(plan.alreadySeeded()).forEach(already::add);
    return o;
  }
}
