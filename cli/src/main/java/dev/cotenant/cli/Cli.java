package dev.cotenant.cli;

import dev.cotenant.api.LogSafe;
import dev.cotenant.cli.views.IoFailure;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.evaluation.MeasureJob;
import dev.cotenant.gateway.providers.ProviderLoadingException;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;

/**
 * Runs one {@code cotenant} command line in a {@link CliContext}, in-process, and returns its
 * exit status:
 *
 * <ul>
 *   <li>{@value #EXIT_OK}: success;
 *   <li>{@value #EXIT_USAGE}: bad usage, or a configuration file that is missing, unreadable or
 *       malformed — one line on standard error naming the file and the problem;
 *   <li>{@value #EXIT_INTERNAL}: an internal error — one line on standard error; the stack
 *       trace only with {@code --debug}.
 * </ul>
 */
public final class Cli {
  /** Success. */
  public static final int EXIT_OK = 0;
  /** An internal error. */
  public static final int EXIT_INTERNAL = 1;
  /** Bad usage or an unusable configuration file. */
  public static final int EXIT_USAGE = 2;

  /** The longest an error message may be on its one line. */
  private static final int MESSAGE_MAX = 2000;

  private final CliContext context;

  /** A CLI writing to and reading from {@code context}. */
  public Cli(CliContext context) {
    this.context = Objects.requireNonNull(context, "context");
  }

  /** Runs {@code args} and returns the exit status. */
  public int run(String... args) {
    CommandLine cl = commandLine();
    try {
      return cl.execute(args);
    } finally {
      context.out().flush();
      context.err().flush();
    }
  }

  /** The command tree, wired to this CLI's output and error handling. */
  CommandLine commandLine() {
    CommandLine cl = new CommandLine(new RootCommand(context));
    cl.setOut(context.out());
    cl.setErr(context.err());
    cl.setParameterExceptionHandler(usageHandler());
    cl.setExecutionExceptionHandler(errorHandler());
    return cl;
  }

  private IParameterExceptionHandler usageHandler() {
    return (ex, args) -> {
      String command = ex.getCommandLine().getCommandSpec().qualifiedName();
      context.err().println("cotenant: " + oneLine(ex.getMessage()) + " (see '" + command + " --help')");
      return EXIT_USAGE;
    };
  }

  private IExecutionExceptionHandler errorHandler() {
    return (ex, cl, parseResult) -> {
      boolean debug = cl.getCommand() instanceof CliCommand && ((CliCommand) cl.getCommand()).common().debug();
      if (ex instanceof ConfigException) {
        context.err().println("cotenant: " + oneLine(describe((ConfigException) ex)));
        return EXIT_USAGE;
      }
      if (ex instanceof UsageException) {
        context.err().println("cotenant: " + oneLine(ex.getMessage()));
        return EXIT_USAGE;
      }
      Throwable cause = ex instanceof MeasureJob.JobFailedException && ex.getCause() != null ? ex.getCause() : ex;
      if (cause instanceof java.io.UncheckedIOException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof java.nio.file.FileSystemException && !debug) {
        context.err().println("cotenant: " + oneLine(cannotWrite((java.nio.file.FileSystemException) cause)));
        return EXIT_INTERNAL;
      }
      if (cause instanceof java.io.IOException && !debug) {
        context.err().println("cotenant: " + oneLine(IoFailure.describe((java.io.IOException) cause)));
        return EXIT_INTERNAL;
      }
      String what =
          cause instanceof ProviderLoadingException
              ? oneLine(cause.getMessage())
              : "internal error: " + oneLine(cause.getClass().getSimpleName() + ": " + cause.getMessage());
      context.err().println("cotenant: " + what + (debug ? "" : " (rerun with --debug for the stack trace)"));
      if (debug) {
        ex.printStackTrace(context.err());
      }
      return EXIT_INTERNAL;
    };
  }

  /**
   * A file the CLI could not create or write, with the reason and the way to put the records
   * elsewhere: the usual cause is a home directory this user cannot write.
   */
  private String cannotWrite(java.nio.file.FileSystemException e) {
    String file = e.getFile() == null ? "a file" : e.getFile();
    String reason = e.getReason() != null ? e.getReason()
        : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
        : e instanceof java.nio.file.NotDirectoryException ? "not a directory"
        : e instanceof java.nio.file.FileAlreadyExistsException ? "a file is in the way"
        : e.getClass().getSimpleName();
    return "cannot write " + file + ": " + reason
        + "; put the records elsewhere with --records-dir DIR or the COTENANT_HOME environment variable";
  }

  /** The message of {@code e} with the file shown as the operator named it. */
  private String describe(ConfigException e) {
    return context.display(e.file()) + ": " + e.problem();
  }

  private static String oneLine(String s) {
    return LogSafe.escape(String.valueOf(s), MESSAGE_MAX);
  }
}
