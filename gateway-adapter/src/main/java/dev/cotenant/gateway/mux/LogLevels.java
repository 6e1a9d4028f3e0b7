package dev.cotenant.gateway.mux;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The logging levels of the sessions sharing one backend (rule 5 of {@link Multiplexer}): the
 * backend runs at the finest level any attached session asked for, and each session receives only
 * the {@code notifications/message} at or above its own level. Thread-safe: the level lock is held
 * while the backend's {@code logging/setLevel} is written, so those requests reach the backend in
 * the order they were decided. Lock order: this lock before the multiplexer's others.
 */
final class LogLevels {
  private final Multiplexer mux;
  private final Object levelLock = new Object();
  /** The level last sent to the backend; guarded by the level lock. */
  private @Nullable LogLevel upstream;

  LogLevels(Multiplexer mux) {
    this.mux = mux;
  }

  /** Sets {@code c}'s level (null: none) and sends the backend the finest level now held, when it changed. */
  void set(Channel c, @Nullable LogLevel level) {
    synchronized (levelLock) {
      c.level = level;
      LogLevel finest = null;
      for (Channel o : mux.channels()) {
        LogLevel l = o.level;
        if (l != null && (finest == null || l.compareTo(finest) < 0)) {
          finest = l;
        }
      }
      Bound b = mux.bound();
      if (finest == null || finest == upstream || b == null || !b.logging() || mux.ended().isPresent()) {
        return;
      }
      upstream = finest;
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("level", finest.wire());
      mux.upkeep(b, "logging/setLevel", EraBridge.withOwnMeta(b, c, p));
    }
  }

  /** Whether a {@code notifications/message} with {@code params} reaches {@code c}: at or above its level, or it set none. */
  static boolean reaches(Channel c, Map<String, Object> params) {
    LogLevel own = c.level;
    Optional<LogLevel> level = LogLevel.parse(params.get("level"));
    return own == null || level.isEmpty() || level.get().compareTo(own) >= 0;
  }
}
