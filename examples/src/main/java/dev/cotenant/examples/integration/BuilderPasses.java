package dev.cotenant.examples.integration;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.evaluation.Evaluator;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.evaluation.PassResult;
import dev.cotenant.gateway.evaluation.Progress;
import dev.cotenant.gateway.rows.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Embedding without DI: the runtime from {@link Cotenant#builder()}, a budgeted pass as a request
 * handler would run it, an uncapped background pass with progress as an operator's "measure
 * all" button would, then the rows.
 *
 * <p>Run: {@code java -cp "examples/target/classes:examples/target/lib/*"
 * dev.cotenant.examples.integration.BuilderPasses examples/mcp.json /tmp/records}
 */
public final class BuilderPasses {
  private BuilderPasses() {}

  /** What the passes did, and the rows afterwards. */
  public record Outcome(Optional<PassResult> budgeted, PassResult uncapped, List<Row> rows) {}

  /** Runs both kinds of pass over the servers of {@code mcpConfig}, reporting progress. */
  public static Outcome run(Path mcpConfig, Path recordsDir, Consumer<Progress> progress)
      throws ConfigException, IOException, InterruptedException, MeasureJob.JobFailedException {
    Cotenant cotenant = Cotenant.builder().recordsDirectory(recordsDir).build();
    List<ConfiguredServer> servers = new McpConfigReader().read(List.of(mcpConfig)).list();
    List<ServerDescription> descriptions = servers.stream().map(ConfiguredServer::description).toList();

    // Two servers measured at once: each pre-flight spawns two processes.
    Evaluator evaluator = cotenant.evaluator(2);

    // From a request: at most Evaluator.BUDGET servers, and only if no other pass is running
    // (empty means "serve the stored rows").
    Optional<PassResult> budgeted = evaluator.budgetedPass(descriptions);

    // An explicit background job over everything still due, with {running, done, measured, total}.
    MeasureJob job = evaluator.startUncapped(descriptions);
    Optional<PassResult> finished;
    while ((finished = job.await(200, TimeUnit.MILLISECONDS)).isEmpty()) {
      progress.accept(job.progress());
    }
    progress.accept(finished.get().progress());

    List<Row> rows = cotenant.rows(servers);
    return new Outcome(budgeted, finished.get(), rows);
  }

  /** Prints the progress, the closing line (only when something was measured) and the rows. */
  public static void main(String[] args) throws Exception {
    Outcome o = run(Path.of(args[0]), Path.of(args[1]), p -> System.err.println(p.done() + "/" + p.total() + " done, " + p.measured() + " measured"));
    o.uncapped().progress().closingLine().ifPresent(System.err::println);
    o.rows().forEach(r -> System.out.println(r.name() + " " + r.strength().wireName()));
  }
}
