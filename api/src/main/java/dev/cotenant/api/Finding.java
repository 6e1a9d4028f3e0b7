package dev.cotenant.api;

import java.util.Objects;

/**
 * One piece of inferred evidence contributed by an evidence source or a managed-server
 * classifier. The code travels as its wire name so that the core, not the source, decides
 * whether it belongs to the closed vocabulary: {@link Assessor#assess} refuses an unknown code
 * with an error naming {@code source}.
 *
 * @param source the contributing provider's name, used in error messages
 * @param code the reason code's wire name
 * @param detail verbatim detail, {@code ""} when there is none
 */
public record Finding(String source, String code, String detail) {
  public Finding {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(detail, "detail");
  }

  /** A finding for a known code. */
  public static Finding of(String source, ReasonCode code, String detail) {
    return new Finding(source, code.wireName(), detail);
  }

  /** A finding for a known code without detail. */
  public static Finding of(String source, ReasonCode code) {
    return new Finding(source, code.wireName(), "");
  }
}
