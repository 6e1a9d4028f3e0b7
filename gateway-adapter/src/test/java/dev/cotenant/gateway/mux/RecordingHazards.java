package dev.cotenant.gateway.mux;

import dev.cotenant.api.HazardCode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link HazardSink} that keeps every observation. Thread-safe. */
final class RecordingHazards implements HazardSink {
  /** One observation. */
  record Seen(HazardCode code, int attached, String detail) {}

  final List<Seen> seen = new CopyOnWriteArrayList<>();

  @Override
  public void observed(HazardCode code, int sessionsAttached, String detail) {
    seen.add(new Seen(code, sessionsAttached, detail));
  }
}
