package dev.cotenant.api;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One tool from a {@code tools/list} answer, as the evidence sources read it.
 *
 * @param name the tool name (may be {@code ""} when a server sent none)
 * @param annotations the {@code annotations} object, when the tool carried one; values are
 *     plain JSON (maps, lists, strings, numbers, booleans, or {@link Json#NULL})
 */
public record ToolFacts(String name, Optional<Map<String, Object>> annotations) {
  public ToolFacts {
    Objects.requireNonNull(name, "name");
    annotations = annotations.map(Json::freezeMap);
  }

  /** A tool without annotations. */
  public static ToolFacts unannotated(String name) {
    return new ToolFacts(name, Optional.empty());
  }

  /** True when the tool declares {@code readOnlyHint: true}. */
  public boolean readOnly() {
    return annotations.map(a -> Boolean.TRUE.equals(a.get("readOnlyHint"))).orElse(false);
  }
}
