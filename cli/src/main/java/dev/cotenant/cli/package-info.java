/**
 * The {@code cotenant} command line: {@link dev.cotenant.cli.Main} (the executable),
 * {@link dev.cotenant.cli.Cli} (runs a command line in-process, for tests),
 * {@link dev.cotenant.cli.RootCommand} (where every subcommand is registered),
 * {@link dev.cotenant.cli.CommonOptions} (the shared options) and
 * {@link dev.cotenant.cli.CliRuntime} (the one way a command builds its runtime). What a command
 * shows is built in {@link dev.cotenant.cli.views}, and the steps the daemon's API runs too are in
 * {@link dev.cotenant.cli.steps}: the daemon depends on those, never on the command classes.
 */
package dev.cotenant.cli;
