package dev.cotenant.examples.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A newline-delimited JSON-RPC conversation with one server process, for checks the SDK client
 * cannot express (a request before {@code initialize}, the 2026-07-28 era). Reads happen on a
 * background thread so that every wait is bounded; stderr is drained so a chatty server cannot
 * block.
 */
final class RawStdioSession implements AutoCloseable {

  private static final Duration ANSWER_BOUND = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringBuffer stderr = new StringBuffer();

  private RawStdioSession(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
    daemon("stdout", () -> {
      try (BufferedReader reader = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          lines.add(line);
        }
      }
    });
    daemon("stderr", () -> {
      try (BufferedReader reader = new BufferedReader(
          new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          stderr.append(line).append('\n');
        }
      }
    });
  }

  /** Starts {@code command} with its stdout and stderr piped. */
  static RawStdioSession start(List<String> command) throws IOException {
    return new RawStdioSession(new ProcessBuilder(command).start());
  }

  /** Writes one message followed by a newline. */
  void send(String json) throws IOException {
    stdin.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /**
   * The next message whose {@code id} equals {@code id}, skipping notifications and other
   * responses; fails when none arrives within the bound.
   */
  JsonNode awaitResponse(int id) throws InterruptedException {
    long deadline = System.nanoTime() + ANSWER_BOUND.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new AssertionError("no response with id " + id + " within " + ANSWER_BOUND
            + "; process alive: " + process.isAlive() + "; stderr: " + stderr);
      }
      JsonNode message = JSON.readTree(line);
      if (message.path("id").isNumber() && message.path("id").asInt() == id) {
        return message;
      }
    }
  }

  /** Closes stdin and waits, within the bound, for the process to exit; returns its status. */
  int closeStdinAndAwaitExit() throws IOException, InterruptedException {
    stdin.close();
    if (!process.waitFor(ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("process did not exit within " + ANSWER_BOUND + " of stdin closing");
    }
    return process.exitValue();
  }

  /** What the process wrote to stderr so far. */
  String stderr() {
    return stderr.toString();
  }

  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // the process already closed its end
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private interface IoTask {
    void run() throws IOException;
  }

  private static void daemon(String name, IoTask task) {
    Thread thread = new Thread(() -> {
      try {
        task.run();
      } catch (IOException e) {
        // the stream closed with the process
      }
    }, "raw-session-" + name);
    thread.setDaemon(true);
    thread.start();
  }
}
