package dev.cotenant.api;

/**
 * Thrown by {@link Assessor#assess} when an evidence source contributes a finding the closed
 * vocabulary does not admit: an unknown code, or a code only the core may derive.
 */
public final class EvidenceRejectedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final String code;

  EvidenceRejectedException(String source, String code, String message) {
    super(message);
    this.source = source;
    this.code = code;
  }

  /** The name of the evidence source that contributed the finding. */
  public String source() {
    return source;
  }

  /** The code as the source sent it. */
  public String code() {
    return code;
  }
}
