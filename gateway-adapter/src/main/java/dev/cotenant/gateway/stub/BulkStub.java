package dev.cotenant.gateway.stub;

import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.GatewaySettings;
import dev.cotenant.gateway.config.LockedJsonFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one implementation of bulk-stub eligibility (docs/integration.md). The host sends candidate names;
 * eligibility is decided inside the lock hold that performs the config write, from the sharing
 * switch as read inside that hold: with sharing on a stub means co-tenancy, so a server needs
 * {@code recommendShare}; with sharing off a stub is 1:1, so {@code recommendStub} suffices.
 */
public final class BulkStub {
  private BulkStub() {}

  /**
   * The outcome.
   *
   * @param stubbed names written as stubbed
   * @param skipped names refused, with why
   * @param sharing the switch state the decision was made from
   */
  public record Result(List<String> stubbed, Map<String, String> skipped, boolean sharing) {
    public Result {
      stubbed = List.copyOf(stubbed);
      skipped = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(skipped));
    }
  }

  /**
   * Stubs every eligible candidate in {@code config}.
   *
   * @param verdicts the current verdict of a name, or {@code null} for an unknown name
   */
  public static Result stub(LockedJsonFile config, Collection<String> candidates, Function<String, Verdict> verdicts)
      throws ConfigException {
    return config.update(
        false,
        root -> {
          boolean sharing = GatewaySettings.sharing(config.file(), root);
          ObjectNode overrides = GatewaySettings.stubOverrides(config.file(), root);
          List<String> stubbed = new ArrayList<>();
          Map<String, String> skipped = new java.util.LinkedHashMap<>();
          for (String name : candidates) {
            Verdict v = verdicts.apply(name);
            if (v == null) {
              skipped.put(name, "not configured");
            } else if (sharing ? v.recommendShare() : v.recommendStub()) {
              overrides.put(name, true);
              stubbed.add(name);
            } else {
              skipped.put(
                  name,
                  (sharing ? "sharing is on and the verdict does not recommend sharing" : "the verdict does not recommend routing it through Cotenant")
                      + " (" + v.strength().wireName() + ")");
            }
          }
          return new Result(stubbed, skipped, sharing);
        });
  }
}
