package dev.cotenant.cli.views;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import tools.jackson.databind.node.ObjectNode;

/**
 * A stored concurrency record as {@code register} shows it, as JSON and as one line; the API's
 * {@code /api/register} and the share steps show it the same way. Stateless.
 */
public final class RegisterView {
  private RegisterView() {}

  /**
   * The stored record as {@code {"name","model","scope","maxConcurrent","probe":{"tool","rounds"}|null}}:
   * what {@code --json} prints, and what the daemon's API answers.
   */
  public static ObjectNode json(ConcurrencyRecord record) {
    ObjectNode o = Output.object();
    o.put("name", record.serverName());
    o.put("model", record.model().wireName());
    o.put("scope", record.scope().wireName());
    if (record.maxConcurrent().isPresent()) {
      o.put("maxConcurrent", record.maxConcurrent().getAsInt());
    } else {
      o.putNull("maxConcurrent");
    }
    if (record.probe().isPresent()) {
      ObjectNode p = o.putObject("probe");
      p.put("tool", record.probe().get().tool());
      p.put("rounds", record.probe().get().rounds());
    } else {
      o.putNull("probe");
    }
    return o;
  }

  /**
   * The stored record as one line: {@code registered NAME: model shared, scope tenant,
   * maxConcurrent 4; statelessness probe passed under the current identity (DETAIL)}.
   */
  public static String text(ConcurrencyRecord stored) {
    StringBuilder sb = new StringBuilder("registered ").append(Output.cell(stored.serverName()))
        .append(": model ").append(stored.model().wireName());
    if (stored.model() == ConcurrencyModel.SHARED) {
      sb.append(", scope ").append(stored.scope().wireName());
    }
    stored.maxConcurrent().ifPresent(n -> sb.append(", maxConcurrent ").append(n));
    stored.probe().ifPresent(p -> sb.append("; statelessness probe passed under the current identity (")
        .append(Output.cell(p.detail())).append(')'));
    return sb.toString();
  }
}
