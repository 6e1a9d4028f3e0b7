package dev.cotenant.cli.views;

import dev.cotenant.spi.HazardLedger;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON of the hazard ledger's commands ({@code hazards list}, {@code hazards clear}) and of the API's hazard routes. Stateless. */
public final class HazardsView {
  private HazardsView() {}

  /**
   * The ledger as {@code {"servers":[{"name","identities":[{"identity","codes","count","lastSeen"}]}]}},
   * with {@code "incomplete"} saying why when it could not be read completely: what
   * {@code --json} prints, and what the daemon's API answers.
   */
  public static ObjectNode json(HazardLedger.Snapshot snapshot) {
    ObjectNode root = Output.object();
    ArrayNode servers = root.putArray("servers");
    for (Map.Entry<String, Map<String, HazardLedger.Observations>> s : snapshot.servers().entrySet()) {
      ObjectNode server = servers.addObject();
      server.put("name", s.getKey());
      ArrayNode ids = server.putArray("identities");
      for (Map.Entry<String, HazardLedger.Observations> id : s.getValue().entrySet()) {
        ObjectNode o = ids.addObject();
        o.put("identity", id.getKey());
        ArrayNode codes = o.putArray("codes");
        id.getValue().codes().forEach(c -> codes.add(c.wireName()));
        o.put("count", id.getValue().count());
        o.put("lastSeen", id.getValue().lastSeen());
      }
    }
    snapshot.incomplete().ifPresent(why -> root.put("incomplete", why));
    return root;
  }

  /** {@code {"name","cleared"}}: what {@code --json} prints, and what the daemon's API answers. */
  public static ObjectNode cleared(String name, boolean cleared) {
    ObjectNode o = Output.object();
    o.put("name", name);
    o.put("cleared", cleared);
    return o;
  }
}
