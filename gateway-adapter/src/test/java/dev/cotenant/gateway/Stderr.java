package dev.cotenant.gateway;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What an action writes to {@code System.err}, where the test logger (slf4j-simple) writes every
 * line at {@code info} and above. Not for tests that run in parallel with others.
 */
public final class Stderr {
  private Stderr() {}

  /** Runs {@code action} with {@code System.err} captured, and returns what it wrote. */
  public static String capture(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }
}
