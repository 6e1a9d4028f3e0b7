package dev.cotenant.cli.views;

import java.io.IOException;
import java.util.Locale;

/**
 * What a failed read or write means, in one line for people: the CLI prints it instead of an
 * "internal error", and the daemon's API answers it. A full disk is named as such, with what it
 * did not damage: every record and configuration is written to a temporary file and renamed into
 * place only once complete, so a write that fails replaces nothing.
 */
public final class IoFailure {
  private IoFailure() {}

  /** True when {@code e}, or a cause of it, says the disk (or the user's quota) is full. */
  public static boolean diskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (m.contains("no space left on device") || m.contains("disk quota exceeded")) {
        return true;
      }
    }
    return false;
  }

  /** One line saying what failed and, for a full disk, that nothing was replaced. */
  public static String describe(IOException e) {
    String m = String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip();
    if (diskFull(e)) {
      return "the disk is full (" + m + "): nothing was replaced, since every record and configuration is"
          + " written to a temporary file first; free some space and try again";
    }
    return "a file could not be read or written: " + m;
  }
}
