package dev.cotenant.spi;

import dev.cotenant.api.Finding;
import java.util.List;

/**
 * Contributes inferred findings about one server. Must be pure over its input (no IO on this
 * path: it runs once per row) and thread-safe. Findings name this source; a code outside the
 * closed vocabulary is refused by the core with an error naming the source.
 */
@FunctionalInterface
public interface EvidenceSource {
  /** The findings for one server; empty when this source has nothing to say. */
  List<Finding> findings(EvidenceInput input);

  /** A source that never finds anything. */
  static EvidenceSource silent() {
    return input -> List.<Finding>of();
  }
}
