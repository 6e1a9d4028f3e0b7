package dev.cotenant.gateway.probe;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * One logical caller of the whole-surface probe and its fixed values: a marker and a workspace
 * value per round, and a tenant. Immutable.
 *
 * @param label {@code A} or {@code B}
 * @param prefix what every marker of this caller starts with
 */
record ProbeCaller(String label, String prefix, List<String> markers, List<String> workspaces, String tenant) {
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * A caller with one marker per suffix ({@code <prefix>-<round>-<suffix>}) and one workspace
   * value per round ({@code <workspace>-<round>}).
   */
  static ProbeCaller of(String label, String prefix, String workspace, String nonce, List<String> suffixes) {
    List<String> m = new ArrayList<>();
    List<String> w = new ArrayList<>();
    for (int r = 1; r <= suffixes.size(); r++) {
      m.add(prefix + "-" + r + "-" + suffixes.get(r - 1));
      w.add(workspace + "-" + r);
    }
    return new ProbeCaller(label, prefix, m, w, "cotenant-probe-" + nonce);
  }

  String marker(int round) {
    return markers.get(round - 1);
  }

  String workspace(int round) {
    return workspaces.get(round - 1);
  }

  /** Every marker and workspace value this caller ever sends. */
  List<String> traces() {
    return Stream.concat(markers.stream(), workspaces.stream()).toList();
  }

  /** {@code bytes} random bytes in hex. */
  static String hex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
