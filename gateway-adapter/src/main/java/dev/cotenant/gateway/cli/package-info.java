/**
 * The {@code cotenant} command line: {@link dev.cotenant.gateway.cli.Main} (the executable),
 * {@link dev.cotenant.gateway.cli.Cli} (runs a command line in-process, for tests),
 * {@link dev.cotenant.gateway.cli.RootCommand} (where every subcommand is registered),
 * {@link dev.cotenant.gateway.cli.CommonOptions} (the shared options) and
 * {@link dev.cotenant.gateway.cli.CliRuntime} (the one way a command builds its runtime).
 */
package dev.cotenant.gateway.cli;
