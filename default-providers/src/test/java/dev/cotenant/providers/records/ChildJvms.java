package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts test-classpath JVMs and makes sure none outlives its test. */
final class ChildJvms implements AutoCloseable {
  private final List<Process> started = new ArrayList<>();

  /** Starts {@code java -cp <test classpath> <main> args...}, stderr inherited. */
  Process start(Class<?> main, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-Xshare:auto");
    cmd.add("-Xmx128m");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    started.add(p);
    return p;
  }

  /** Kills every started JVM and its descendants, and checks none is alive. */
  @Override
  public void close() {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    for (Process p : started) {
      try {
        p.waitFor(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while reaping child JVM " + p.pid(), e);
      }
      assertEquals(false, p.isAlive(), "child JVM " + p.pid() + " still alive");
      assertEquals(0L, p.descendants().filter(ProcessHandle::isAlive).count(), "descendants of " + p.pid() + " still alive");
    }
  }
}
