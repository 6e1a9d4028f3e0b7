package dev.cotenant.cli;

import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options every {@code cotenant} command takes, mixed into each subcommand with
 * {@code @Mixin}.
 */
public final class CommonOptions {
  @Option(
      names = "--records-dir",
      paramLabel = "DIR",
      description = "The records directory (default: the parent of --socket-path, else $COTENANT_HOME/records, else ~/.cotenant/records).")
  String recordsDir;

  @Option(
      names = "--socket-path",
      paramLabel = "PATH",
      description = "The gateway socket path; the records live in its parent directory.")
  String socketPath;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "Sets a configuration key (repeatable), e.g. --set cotenant.preflight.era=initialize; every key is listed in docs/providers.md.")
  java.util.List<String> settings = new java.util.ArrayList<>();

  @Option(names = "--json", description = "Print JSON on standard output instead of a table.")
  boolean json;

  @Option(names = "--debug", description = "On an internal error, print the stack trace; log at debug level.")
  boolean debug;

  /** The {@code --records-dir} value, if given. */
  public Optional<String> recordsDir() {
    return Optional.ofNullable(recordsDir);
  }

  /** The {@code --socket-path} value, if given. */
  public Optional<String> socketPath() {
    return Optional.ofNullable(socketPath);
  }

  /** The {@code --set KEY=VALUE} pairs, in order given (a later one wins). */
  public java.util.List<String> settings() {
    return java.util.List.copyOf(settings);
  }

  /** True with {@code --json}. */
  public boolean json() {
    return json;
  }

  /** True with {@code --debug}. */
  public boolean debug() {
    return debug;
  }
}
