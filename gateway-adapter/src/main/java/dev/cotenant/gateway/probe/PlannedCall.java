package dev.cotenant.gateway.probe;

import java.util.List;

/**
 * A tool the whole-surface probe calls, with its arguments.
 *
 * @param source where the arguments came from ({@code plan ...}, {@code schema ...}), as reported
 * @param readOnly true when annotated {@code readOnlyHint: true}: it is called after the others
 * @param alternatives other argument sets to try when these answer an error
 */
record PlannedCall(
    String name, ArgumentTemplate arguments, String source, boolean readOnly, List<ArgumentTemplate> alternatives) {
  PlannedCall(String name, ArgumentTemplate arguments, String source, boolean readOnly) {
    this(name, arguments, source, readOnly, List.of());
  }
}
