package dev.cotenant.gateway.evaluation;

/**
 * Where an uncapped pass stands.
 *
 * @param running true while the pass runs
 * @param done servers attempted so far (advances even when a server cannot be measured)
 * @param measured servers that produced a measurement
 * @param total servers the pass set out to attempt
 */
public record Progress(boolean running, int done, int measured, int total) {
  /** No pass has run. */
  public static final Progress IDLE = new Progress(false, 0, 0, 0);

  /**
   * The closing line for a finished pass, built from {@link #measured()} only; empty when
   * nothing was measured (silent, never false).
   */
  public java.util.Optional<String> closingLine() {
    if (running || measured == 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of("measured " + measured + " of " + total + (total == 1 ? " server" : " servers"));
  }
}
