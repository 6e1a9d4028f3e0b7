package dev.cotenant.gateway.evaluation;

import dev.cotenant.spi.PreflightResult;
import java.util.Map;

/**
 * What one pass did.
 *
 * @param attempted the results of the servers it attempted, by name (a server whose
 *     measurement failed appears with a not-run result)
 * @param progress the final progress
 */
public record PassResult(Map<String, PreflightResult> attempted, Progress progress) {
  public PassResult {
    attempted = Map.copyOf(attempted);
  }
}
