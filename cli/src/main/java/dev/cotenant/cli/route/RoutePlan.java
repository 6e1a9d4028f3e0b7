package dev.cotenant.cli.route;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * What {@code route} or {@code route --undo} would do to one client configuration.
 *
 * @param text the client configuration's whole new content (the same text when nothing changes)
 * @param outcomes one per server entry considered, in file order
 * @param originals routing: the original entries to add to the sidecar; undoing: the originals
 *     restored, to take out of the sidecar
 * @param routedAs routing: the entry that replaces each routed server (kept in the sidecar, so
 *     undoing can tell an entry changed by hand); empty when undoing
 * @param originalTexts routing: each original entry's text as the file held it, comments,
 *     trailing commas and line breaks included (kept in the sidecar, so undoing restores it
 *     verbatim); empty when undoing
 */
public record RoutePlan(
    String text, List<Outcome> outcomes, Map<String, JsonNode> originals, Map<String, JsonNode> routedAs,
    Map<String, String> originalTexts) {
  public RoutePlan {
    Objects.requireNonNull(text, "text");
    outcomes = List.copyOf(outcomes);
    originals = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(originals));
    routedAs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(routedAs));
    originalTexts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(originalTexts));
  }

  /** A plan that keeps no original texts. */
  public RoutePlan(String text, List<Outcome> outcomes, Map<String, JsonNode> originals, Map<String, JsonNode> routedAs) {
    this(text, outcomes, originals, routedAs, Map.of());
  }

  /** What happens to one entry. */
  public enum Kind {
    /** Routing: the entry now launches {@code cotenant connect}. */
    ROUTED,
    /** Routing: the entry launched {@code cotenant connect} already. */
    ALREADY_ROUTED,
    /** Routing: the entry is left as it is, for {@link Outcome#reason()}. */
    NOT_ROUTED,
    /** Undoing: the original entry is back. */
    RESTORED,
    /** Undoing: the entry is left as it is, for {@link Outcome#reason()}. */
    LEFT
  }

  /**
   * The outcome for one server.
   *
   * @param name the server's name
   * @param kind what happens to it
   * @param reason why, for {@link Kind#NOT_ROUTED} and {@link Kind#LEFT}; else empty
   */
  public record Outcome(String name, Kind kind, String reason) {
    public Outcome {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The outcomes of {@code kind}, in file order. */
  public List<Outcome> of(Kind kind) {
    return outcomes.stream().filter(o -> o.kind() == kind).toList();
  }
}
