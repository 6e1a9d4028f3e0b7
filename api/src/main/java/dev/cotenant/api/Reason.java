package dev.cotenant.api;

import java.util.Objects;

/**
 * A reason: a stable {@link ReasonCode} plus a verbatim detail (an env variable name, a
 * capability path, a hazard code). The detail is never translated and never exported; it is
 * escaped with {@link LogSafe} wherever it reaches a log line. An absent detail is {@code ""}.
 */
public record Reason(ReasonCode code, String detail) {
  public Reason {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(detail, "detail");
  }

  /** A reason without detail. */
  public static Reason of(ReasonCode code) {
    return new Reason(code, "");
  }

  @Override
  public String toString() {
    return detail.isEmpty() ? code.wireName() : code.wireName() + "(" + LogSafe.escape(detail) + ")";
  }
}
