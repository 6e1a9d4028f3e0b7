package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.PreflightResult;
import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code measure}'s progress on standard error: a line when a pre-flight ends, not one per tick
 * of the clock; on a terminal, the redrawn line reaches the terminal at once.
 */
class MeasureProgressTest {
  private static final String TWO = "{\"mcpServers\": {\"alpha\": {\"command\": \"/nonexistent/progress/alpha\"},"
      + " \"beta\": {\"command\": \"/nonexistent/progress/beta\"}}}";

  @TempDir Path tmp;

  private static void waitFor(Supplier<String> text, String part, CompletableFuture<?> run) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!text.get().contains(part)) {
      assertTrue(System.nanoTime() < deadline && !run.isDone(), "'" + part + "' never came: " + text.get());
      Thread.sleep(10);
    }
  }

  @Test
  void eachChangeIsOneLineHoweverLongAPreflightTakes() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", TWO);
    CountDownLatch alpha = new CountDownLatch(1);
    CountDownLatch beta = new CountDownLatch(1);
    cli.transport.gates.put("alpha", alpha);
    cli.transport.gates.put("beta", beta);
    cli.transport.answers.put("beta", PreflightResult.notRun("needs a credential"));
    CompletableFuture<CliHarness.Result> run = CompletableFuture.supplyAsync(() -> cli.run("measure", "mcp.json"));
    waitFor(cli.liveErr::toString, "measuring: 0/2 done, 0 measured", run);
    // Several ticks of the progress clock with nothing done: no line more.
    Thread.sleep(5 * MeasureCommand.TICK_MS);
    alpha.countDown();
    waitFor(cli.liveErr::toString, "measuring: 1/2 done, 1 measured", run);
    Thread.sleep(5 * MeasureCommand.TICK_MS);
    // beta ends without a measurement: done moves, measured does not.
    beta.countDown();
    CliHarness.Result r = run.get(30, TimeUnit.SECONDS);
    assertEquals(0, r.code(), r.err());
    assertEquals(List.of("measuring: 0/2 done, 0 measured", "measuring: 1/2 done, 1 measured",
        "measuring: 2/2 done, 1 measured", "cotenant: measured 1 of 2 servers"), r.errLines());
  }

  @Test
  void onATerminalTheLineIsRedrawnWhenItChangesAndFlushedAtOnce() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    cli.write("mcp.json", TWO);
    CountDownLatch gate = new CountDownLatch(1);
    cli.transport.gates.put("alpha", gate);
    cli.transport.gates.put("beta", gate);
    StringWriter terminal = new StringWriter();
    // A buffered standard error, as a terminal's stream is: only a flush shows what was printed.
    CliContext context = new CliContext(new PrintWriter(new StringWriter(), true), new PrintWriter(new BufferedWriter(terminal)),
        cli.env, cli.cwd, cli.home, b -> b.preflightTransport(cli.transport), true);
    CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> new Cli(context).run("measure", "mcp.json",
        "--records-dir", cli.records.toString()));
    String both = "\rmeasuring: 0/2 done, 0 measured (now: alpha, beta)\u001b[K";
    try {
      // Two pre-flights at once (CliRuntime.PARALLELISM): both named while both wait.
      waitFor(terminal::toString, both, run);
      Thread.sleep(5 * MeasureCommand.TICK_MS);
    } finally {
      gate.countDown();
    }
    assertEquals(1, terminal.toString().split(java.util.regex.Pattern.quote(both), -1).length - 1,
        "the line is redrawn when it changes, not at every tick: " + terminal);
    assertEquals(0, run.get(30, TimeUnit.SECONDS));
    assertTrue(terminal.toString().contains("\rmeasuring: 2/2 done, 2 measured\u001b[K\n"), terminal.toString());
  }
}
