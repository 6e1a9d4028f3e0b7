package dev.cotenant.providers.records;

import dev.cotenant.api.HazardCode;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A separate JVM writing a ledger, for the crash-safety and two-writer tests.
 *
 * <ul>
 *   <li>{@code crash-loop <dir> <prefill>}: records {@code prefill} identities of server
 *       {@code bulk} unless the file has them, then forever records server {@code s<k>} and flushes, printing
 *       {@code capture} once a flush has captured its payload and {@code flushed <k> <nanos>}
 *       after it. Starts at the first {@code k} the file lacks.
 *   <li>{@code bulk <dir> <tag> <n>}: records {@code n} distinct observations tagged {@code tag},
 *       flushing every 10, then exits.
 * </ul>
 */
public final class LedgerChild {
  static final long CLOCK_MILLIS = 1_000L;

  private LedgerChild() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[1]);
    FileHazardLedger l = FileHazardLedger.open(dir, () -> CLOCK_MILLIS);
    if (args[0].equals("crash-loop")) {
      int prefill = Integer.parseInt(args[2]);
      if (l.codesForName("bulk").isEmpty()) {
        prefill(l, prefill);
      }
      int k = 0;
      while (l.codesForName("s" + k).size() > 0) {
        k++;
      }
      System.out.println("start " + k);
      System.out.flush();
      l.afterCaptureHook(
          () -> {
            System.out.println("capture");
            System.out.flush();
          });
      for (;; k++) {
        l.record("s" + k, "id", HazardCode.CROSS_SESSION_LEAK, 2);
        long t0 = System.nanoTime();
        l.flush();
        System.out.println("flushed " + k + " " + (System.nanoTime() - t0));
        System.out.flush();
      }
    }
    if (args[0].equals("bulk")) {
      String tag = args[2];
      int n = Integer.parseInt(args[3]);
      for (int i = 0; i < n; i++) {
        l.record("srv-" + (i % 50), tag + "-" + i, HazardCode.values()[i % 3], 2);
        if (i % 10 == 9) {
          l.flush();
        }
      }
      l.flush();
      System.out.println("done " + tag);
      return;
    }
    throw new IllegalArgumentException("unknown mode " + args[0]);
  }

  /** Records the identities every crash-loop ledger carries, so each write is large. */
  static void prefill(FileHazardLedger l, int n) {
    for (int i = 0; i < n; i++) {
      l.record("bulk", "p" + i, HazardCode.UNROUTABLE_SERVER_REQUEST, 2);
    }
  }
}
