package dev.cotenant.fleet.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Child JVMs running {@link LimiterChild}, each killed and checked gone by {@link #close()}. */
final class Children implements AutoCloseable {
  private final List<Process> started = new ArrayList<>();
  private final Path logs;

  Children() throws IOException {
    this.logs = Files.createTempDirectory("cotenant-limiter-children");
  }

  /** Starts {@code java -cp <this classpath> LimiterChild args...}, its stderr to a log. */
  Process start(String... args) throws IOException {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), LimiterChild.class.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command)
        .redirectError(logs.resolve("child-" + started.size() + ".log").toFile())
        .start();
    started.add(p);
    return p;
  }

  /** The child's next stdout line, or an AssertionError with its log when it has none in time. */
  static String line(Process p, long timeoutSeconds) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    java.util.concurrent.CompletableFuture<String> f = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return r.readLine();
      } catch (IOException e) {
        return null;
      }
    });
    try {
      return f.get(timeoutSeconds, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("child " + p.pid() + " printed nothing in " + timeoutSeconds + " s");
    }
  }

  /** The stderr of the child at {@code index}, for a failure message. */
  String log(int index) {
    try {
      return Files.readString(logs.resolve("child-" + index + ".log"));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  /** SIGKILLs every child still running and checks that none is left. */
  @Override
  public void close() throws Exception {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    for (Process p : started) {
      p.waitFor(30, TimeUnit.SECONDS);
      assertFalse(p.isAlive(), "child " + p.pid() + " outlived the test");
      assertFalse(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false), "child " + p.pid() + " is left");
    }
    try (var files = Files.list(logs)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(logs);
  }
}
