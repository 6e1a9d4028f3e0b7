package dev.cotenant.gateway.config;

import java.nio.file.Path;

/**
 * A configuration file that cannot be used: unreadable, malformed, or describing a server in a
 * way Cotenant cannot understand. The message is one line naming the file and the problem, fit
 * to show an operator as is.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String problem;

  /** A problem with {@code file}, described by {@code problem}. */
  public ConfigException(Path file, String problem) {
    super(file + ": " + problem);
    this.file = file;
    this.problem = problem;
  }

  /** A problem with {@code file}, with its cause. */
  public ConfigException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
    this.file = file;
    this.problem = problem;
  }

  /** The problem, without the file. */
  public String problem() {
    return problem;
  }

  /** The file the problem is in. */
  public Path file() {
    return file;
  }
}
