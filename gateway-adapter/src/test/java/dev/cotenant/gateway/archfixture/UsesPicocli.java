package dev.cotenant.gateway.archfixture;

/** Breaks {@code NO_CLI_FRAMEWORK_OUTSIDE_THE_CLI} on purpose. */
public final class UsesPicocli {
  private UsesPicocli() {}

  /** A picocli command line outside the CLI package. */
  public static Object commandLine(Object command) {
    return new picocli.CommandLine(command);
  }
}
