package dev.cotenant.gateway.probe;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** One caller on one backend of the whole-surface probe, and the answers it got, by step key. */
final class ProbeLane {
  final ProbeCaller caller;
  final ProbeBackend backend;
  /** Each answer as kept ({@link Redactor#kept}), by step key ({@code "<round> <channel>"}). */
  final Map<String, Map<String, Object>> answers = new LinkedHashMap<>();
  final Set<String> baselineUris = new LinkedHashSet<>();
  final Set<String> readUris = new LinkedHashSet<>();

  ProbeLane(ProbeCaller caller, ProbeBackend backend) {
    this.caller = caller;
    this.backend = backend;
  }
}
