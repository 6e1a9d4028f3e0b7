package dev.cotenant.cli.daemon.api;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/** The members every background job of the API reports the same way (measure, share). */
final class JobJson {
  private JobJson() {}

  /** {@code key}: {@code value}, or {@code null} when there is none. */
  static void putNullable(ObjectNode o, String key, @Nullable String value) {
    if (value == null) {
      o.putNull(key);
    } else {
      o.put(key, value);
    }
  }

  /** {@code error}, {@code startedAt} and {@code finishedAt}, each {@code null} without a job or before it ended. */
  static void putTimes(ObjectNode o, @Nullable String error, @Nullable Instant startedAt, @Nullable Instant finishedAt) {
    putNullable(o, "error", error);
    putNullable(o, "startedAt", startedAt == null ? null : startedAt.toString());
    putNullable(o, "finishedAt", finishedAt == null ? null : finishedAt.toString());
  }
}
