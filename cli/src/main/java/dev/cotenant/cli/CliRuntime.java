package dev.cotenant.cli;

import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.cli.route.RoutedServers;
import dev.cotenant.cli.steps.MeasurePass;
import dev.cotenant.cli.views.Output;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.DefaultConfigLocations;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.config.ServerConfigs;
import dev.cotenant.gateway.evaluation.Evaluator;
import dev.cotenant.gateway.records.RecordsDirectory;
import dev.cotenant.gateway.rows.LoadedState;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.seeding.Seeder;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The one way every {@code cotenant} command builds what it runs on: the records directory and
 * the configuration ({@code --set}) from the common options, and the {@link Cotenant} runtime,
 * the assembly point every host uses too; this class adds only what is the CLI's own (reading
 * configuration files, choosing servers by name, labelling rows with the file they came from).
 * A new command asks this class rather than building its own.
 */
public final class CliRuntime {
  /** Servers measured at once in a pass ({@link MeasurePass#PARALLELISM}). */
  public static final int PARALLELISM = MeasurePass.PARALLELISM;

  private final CliContext context;
  private final Path recordsDirectory;
  private final Cotenant cotenant;
  private final java.util.Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private CliRuntime(CliContext context, Path recordsDirectory, Cotenant cotenant) {
    this.context = context;
    this.recordsDirectory = recordsDirectory;
    this.cotenant = cotenant;
  }

  /**
   * Resolves the records directory and builds the runtime.
   *
   * @throws UsageException when the options or the environment name an unusable records directory
   */
  public static CliRuntime open(CliContext context, CommonOptions options) throws UsageException {
    if (options.recordsDir().isPresent() && options.socketPath().isPresent()) {
      throw new UsageException("--records-dir and --socket-path exclude each other; give one");
    }
    Map<String, String> settings = new TreeMap<>();
    for (String pair : options.settings()) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("--set needs KEY=VALUE, got '" + pair + "'");
      }
      String key = pair.substring(0, eq).strip();
      if (!key.startsWith("cotenant.")) {
        throw new UsageException("--set " + key + ": Cotenant's configuration keys start with \"cotenant.\" (see docs/providers.md)");
      }
      settings.put(key, pair.substring(eq + 1));
    }
    ProviderConfig config = ProviderConfig.of(settings);
    if (options.socketPath().isPresent()) {
      String raw = options.socketPath().get();
      boolean unset = raw.isBlank() || raw.strip().equals(".") || raw.strip().equals("./");
      config = config.with(RecordsDirectory.SOCKET_PATH_KEY, unset ? raw : context.resolve(raw).toString());
    }
    if (options.recordsDir().isPresent() && options.recordsDir().get().isBlank()) {
      throw new UsageException("--records-dir is empty; name a directory, or leave the option out to use "
          + "$COTENANT_HOME/records (default ~/.cotenant/records)");
    }
    Path records;
    try {
      records =
          options.recordsDir().isPresent()
              ? context.resolve(options.recordsDir().get())
              : RecordsDirectory.resolve(config, context.env(), context.home());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    Cotenant.Builder builder = Cotenant.builder().config(config).recordsDirectory(records).environment(context.env());
    Cotenant cotenant;
    try {
      cotenant = context.runtime().apply(builder).build();
      // Read now, so a malformed value is a usage error before anything runs.
      dev.cotenant.gateway.sharing.SharingSettings.fromConfig(cotenant.config());
      dev.cotenant.gateway.pool.PoolSettings.fromConfig(cotenant.config());
      dev.cotenant.gateway.mux.MuxSettings.fromConfig(cotenant.config());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    return new CliRuntime(context, records, cotenant);
  }

  /** The context this runtime writes to. */
  public CliContext context() {
    return context;
  }

  /** The records directory in use. */
  public Path recordsDirectory() {
    return recordsDirectory;
  }

  /** The runtime. */
  public Cotenant cotenant() {
    return cotenant;
  }

  /** The record stores (opened on first call). */
  public RecordStores stores() {
    return cotenant.recordStores();
  }

  /**
   * Reads the named configuration files, or, when none is named, every usual location that
   * exists (saying on standard error which were read). A file found by that discovery that
   * cannot be read is reported as a warning and skipped; a file named on the command line that
   * cannot be read is an error. A server refused by name is reported and left out, the others
   * are read.
   *
   * <p>A routed entry (one that launches {@code connect NAME SIDECAR}, written by {@code route})
   * is read as the original entry its sidecar keeps ({@link RoutedServers}), and standard error
   * says so once per sidecar: {@code cotenant: calc (routed; original from SIDECAR)}. One whose
   * original cannot be found is refused with a warning, never read as the shim.
   *
   * @throws ConfigException naming the file and the problem
   */
  public ServerConfigs readConfigs(List<String> named) throws ConfigException {
    McpConfigReader reader = new McpConfigReader();
    ServerConfigs read;
    if (named.isEmpty()) {
      List<Path> candidates = DefaultConfigLocations.candidates(context.workingDirectory(), context.home());
      List<Path> files = new ArrayList<>();
      for (Path p : candidates) {
        if (!Files.exists(p)) {
          continue;
        }
        try {
          reader.read(List.of(p));
          files.add(p);
        } catch (ConfigException e) {
          warn(context.display(p) + ": " + e.problem() + "; skipped");
        }
      }
      if (files.isEmpty()) {
        context.err().println(
            "cotenant: no MCP configuration file in the usual locations ("
                + candidates.stream().map(context::display).collect(Collectors.joining(", "))
                + "); name one");
      } else {
        context.err().println(
            "cotenant: reading " + files.stream().map(context::display).collect(Collectors.joining(", ")));
      }
      read = reader.read(files);
    } else {
      List<Path> files = new ArrayList<>();
      for (String n : named) {
        files.add(context.resolve(n));
      }
      read = reader.read(files);
    }
    RoutedServers.Resolved resolved = RoutedServers.resolve(read);
    Map<Path, List<String>> bySidecar = new java.util.LinkedHashMap<>();
    resolved.sidecars().forEach((name, sidecar) -> bySidecar.computeIfAbsent(sidecar, k -> new ArrayList<>()).add(name));
    bySidecar.forEach((sidecar, names) -> context.err().println("cotenant: "
        + names.stream().map(Output::cell).collect(Collectors.joining(", ")) + " (routed; original"
        + (names.size() == 1 ? "" : "s") + " from " + Output.cell(context.display(sidecar)) + ")"));
    resolved.configs().refused().forEach(r -> warn(context.display(r.file()) + ": " + r.reason()));
    return resolved.configs();
  }

  /**
   * The server {@code name} of the configuration files {@code named} ({@link #readConfigs},
   * {@link #select}).
   *
   * @throws ConfigException when a file cannot be read, or the server is refused
   * @throws UsageException when no file defines it
   */
  public ConfiguredServer server(List<String> named, String name) throws ConfigException, UsageException {
    return select(readConfigs(named), List.of(name)).get(0);
  }

  /** Prints one warning line, {@code cotenant: warning: ...}, once per run. */
  public void warn(String message) {
    if (warned.add(message)) {
      context.err().println("cotenant: warning: " + message);
    }
  }

  /**
   * The servers of {@code configs} named in {@code names} (all when empty), in config order.
   *
   * @throws ConfigException when a name is one the files define but that was refused, with why
   * @throws UsageException when no file defines a name
   */
  public List<ConfiguredServer> select(ServerConfigs configs, Collection<String> names) throws UsageException, ConfigException {
    if (names.isEmpty()) {
      return configs.list();
    }
    for (String n : names) {
      java.util.Optional<dev.cotenant.gateway.config.RefusedServer> refused =
          configs.refused().stream().filter(r -> r.name().equals(n)).findFirst();
      if (configs.get(n).isEmpty() && refused.isPresent()) {
        throw new ConfigException(refused.get().file(), refused.get().reason());
      }
      if (configs.get(n).isEmpty()) {
        throw new UsageException(
            "no server named \"" + n + "\" in "
                + configs.files().stream().map(context::display).collect(Collectors.joining(", ")));
      }
    }
    return configs.list().stream().filter(s -> names.contains(s.name())).toList();
  }

  /**
   * Every row of {@code servers}: one load, then rows built without IO, labelled with their file as
   * shown. When the ledger or the concurrency records cannot be read completely, one warning per
   * record says so on standard error (every row also carries it as a note).
   */
  public List<Row> rows(Collection<ConfiguredServer> servers) {
    LoadedState state = cotenant.load(servers);
    for (Reason note : state.recordsNotes()) {
      warn((note.code() == ReasonCode.LEDGER_UNREADABLE ? "the hazard ledger" : "the concurrency records")
          + " cannot be read completely: " + Output.cell(note.detail())
          + "; no server is recommended for sharing until it can (" + note.code().wireName() + ")");
    }
    return cotenant.rows(state, s -> context.display(s.source()));
  }

  /** An evaluator over the record stores and the pre-flight transport. */
  public Evaluator evaluator() {
    return cotenant.evaluator(PARALLELISM);
  }

  /** A seeder using the seeding policy, keeping its markers in the pre-flight cache. */
  public Seeder seeder() {
    return cotenant.seeder();
  }
}
