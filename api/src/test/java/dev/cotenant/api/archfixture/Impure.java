package dev.cotenant.api.archfixture;

import java.io.File;
import java.time.Clock;
import java.time.Instant;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/** Deliberately breaks every api rule, so the rules can be shown to reject it. */
public final class Impure {
  private Impure() {}

  /** Reads the environment. */
  public static String env() {
    return System.getenv("HOME");
  }

  /** Reads a system property through a method reference. */
  public static Supplier<String> property() {
    return () -> System.getProperty("user.dir");
  }

  /** Reads the wall clock. */
  public static long millis() {
    return System.currentTimeMillis();
  }

  /** Reads the clock through java.time. */
  public static Instant now() {
    return Instant.now();
  }

  /** Holds a clock. */
  public static Clock clock() {
    return Clock.systemUTC();
  }

  /** Touches the file system. */
  public static boolean exists() {
    return new File("/").exists();
  }

  /** Starts a thread. */
  public static void spawn() {
    new Thread(() -> {}).start();
  }

  /** Is not deterministic. */
  public static int roll() {
    return new Random().nextInt();
  }

  /** Discovers providers. */
  public static Object discover() {
    return ServiceLoader.load(Runnable.class);
  }

  /** Depends on a library outside the JDK. */
  public static Object library() {
    return org.quicktheories.generators.Generate.constant(1);
  }
}
