package dev.cotenant.cli;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ShareScope;
import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.views.RegisterView;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.probe.RegistrationRefusedException;
import dev.cotenant.gateway.probe.Statelessness;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cotenant register NAME [CONFIG...] --model shared --scope tenant --max-concurrent N}:
 * stores how a server may be used in {@code concurrency-records.json}. {@code shared} is refused,
 * saying why, unless a statelessness probe passed under the server's current launch identity, the
 * ledger holds nothing against it, and {@code --max-concurrent} is positive. Exit status
 * {@value Cli#EXIT_OK} when stored, {@value #EXIT_REFUSED} when refused.
 */
@Command(
    name = "register",
    description =
        "Register a server's concurrency model (sidecar, shared, warm_pool). 'shared' needs a statelessness probe "
            + "passed under the server's current identity and --max-concurrent; refused otherwise (exit status 4).")
public final class RegisterCommand extends CliCommand {
  /** The registration was refused. */
  public static final int EXIT_REFUSED = 4;

  @Mixin ServerArguments server = new ServerArguments();

  @Option(names = "--model", paramLabel = "MODEL", required = true, description = "sidecar, shared or warm_pool.")
  String model;

  @Option(names = "--scope", paramLabel = "SCOPE", defaultValue = "tenant",
      description = "tenant (default) or global; meaningful only for shared.")
  String scope;

  @Option(names = "--max-concurrent", paramLabel = "N", description = "The most calls the backend serves at once; required for shared.")
  Integer maxConcurrent;

  /** Created by picocli. */
  public RegisterCommand() {}

  @Override
  public Integer call() throws Exception {
    ConcurrencyModel m = ConcurrencyModel.fromWire(model).orElseThrow(() -> new UsageException(
        "--model must be one of " + Arrays.stream(ConcurrencyModel.values()).map(ConcurrencyModel::wireName)
            .collect(Collectors.joining(", ")) + "; got '" + model + "'"));
    ShareScope s = ShareScope.fromWire(scope).orElseThrow(() -> new UsageException(
        "--scope must be one of " + Arrays.stream(ShareScope.values()).map(ShareScope::wireName)
            .collect(Collectors.joining(", ")) + "; got '" + scope + "'"));
    OptionalInt max = maxConcurrent(maxConcurrent);
    CliRuntime rt = runtime();
    ConfiguredServer target = server.server(rt);
    Statelessness statelessness = rt.cotenant().statelessness();
    ConcurrencyRecord stored;
    try {
      stored = statelessness.register(target.description(), m, s, max);
    } catch (RegistrationRefusedException e) {
      context().err().println("cotenant: " + Output.cell(e.getMessage()));
      return EXIT_REFUSED;
    }
    if (common.json()) {
      Output.json(context().out(), RegisterView.json(stored));
    } else {
      context().out().println(RegisterView.text(stored));
    }
    return Cli.EXIT_OK;
  }

  /**
   * {@code --max-concurrent} checked: positive when given.
   *
   * @throws UsageException when it is zero or negative
   */
  static OptionalInt maxConcurrent(Integer given) throws UsageException {
    if (given != null && given < 1) {
      throw new UsageException("--max-concurrent must be a positive integer (calls the backend serves at once), got " + given);
    }
    return given == null ? OptionalInt.empty() : OptionalInt.of(given);
  }
}
