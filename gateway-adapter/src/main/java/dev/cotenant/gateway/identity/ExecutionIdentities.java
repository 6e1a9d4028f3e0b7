package dev.cotenant.gateway.identity;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.ProviderConfig;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Computes a server's launch identity (docs/architecture.md): the IO half (finding and fingerprinting the
 * executable) lives here, the hashing in {@link ExecutionIdentity}.
 *
 * <p>The fingerprint also covers the regular files the arguments name (a script, an entry point),
 * bounded in number: an interpreter's identity alone would not change when its script is edited.
 *
 * <p>The executable is the configured command: an absolute path is used as is, a path with a
 * separator is taken relative to the server's {@code cwd}, and a bare name is searched on the
 * {@code PATH} of the server's env, else of the host env given at construction. Its fingerprint
 * is {@code <real path>|<size>|<mtime>}, or {@link ExecutionIdentity#UNKNOWN_BINARY} when it
 * cannot be found or read (and always for a transport without a command).
 *
 * <p>Configuration: {@value CoreSettings#SECRET_PATTERNS} (comma-separated globs, default
 * {@link SecretPatterns#DEFAULT_GLOBS}) and {@value CoreSettings#POOL_IDENTITY_ENV} (comma-separated env
 * names that count in the env hash even when they look secret). Immutable and thread-safe.
 */
public final class ExecutionIdentities {
  private final SecretPatterns secrets;
  private final List<String> poolIdentityEnv;
  private final Map<String, String> hostEnv;

  /**
   * @param secrets which env names are secrets
   * @param poolIdentityEnv env names that count in the env hash even when they look secret
   * @param hostEnv the environment servers are spawned from (its {@code PATH} is searched when the
   *     server declares none)
   */
  public ExecutionIdentities(SecretPatterns secrets, List<String> poolIdentityEnv, Map<String, String> hostEnv) {
    this.secrets = Objects.requireNonNull(secrets, "secrets");
    this.poolIdentityEnv = List.copyOf(poolIdentityEnv);
    this.hostEnv = Map.copyOf(hostEnv);
  }

  /**
   * Reads {@value CoreSettings#SECRET_PATTERNS} and {@value CoreSettings#POOL_IDENTITY_ENV}.
   *
   * @throws IllegalArgumentException naming the key when a secret pattern is blank
   */
  public static ExecutionIdentities fromConfig(ProviderConfig config, Map<String, String> hostEnv) {
    return new ExecutionIdentities(CoreSettings.secretPatterns(config), CoreSettings.poolIdentityEnv(config), hostEnv);
  }

  /** The secret patterns in use. */
  public SecretPatterns secrets() {
    return secrets;
  }

  /** The pool-identity env list in use. */
  public List<String> poolIdentityEnv() {
    return poolIdentityEnv;
  }

  /** The identity of {@code server}; its effective env is the env its configuration declares. */
  public ExecutionIdentity identify(ServerDescription server) {
    return identify(server, server.env());
  }

  /**
   * The identity of {@code server} launched with {@code effectiveEnv}. Its binary fingerprint
   * covers the executable and the regular files its arguments name ({@link #argumentFiles}), so
   * editing the script of {@code python3 server.py} or {@code node dist/index.js} makes a new
   * identity.
   */
  public ExecutionIdentity identify(ServerDescription server, Map<String, String> effectiveEnv) {
    StringBuilder fingerprint = new StringBuilder(fingerprint(resolveExecutable(server, effectiveEnv)));
    for (Path file : argumentFiles(server)) {
      fingerprint.append(';').append(fingerprint(Optional.of(file)));
    }
    return ExecutionIdentity.of(
        server, effectiveEnv, secrets, poolIdentityEnv, fingerprint.toString(), ExecutionIdentity.PREFLIGHT_SCHEMA);
  }

  /** The most arguments looked at for files. */
  public static final int MAX_ARGUMENTS_LOOKED_AT = 64;

  /** The most argument files fingerprinted. */
  public static final int MAX_ARGUMENT_FILES = 8;

  /**
   * The regular files named by {@code server}'s arguments, in order: an argument that is an
   * absolute path, or a relative one resolved against the server's {@code cwd} (else this
   * process's working directory), and names a regular file. Bounded: the first
   * {@value #MAX_ARGUMENTS_LOOKED_AT} arguments are looked at, and at most
   * {@value #MAX_ARGUMENT_FILES} files are kept, so the cost is a few {@code stat} calls.
   */
  public List<Path> argumentFiles(ServerDescription server) {
    if (server.transport() != Transport.STDIO) {
      return List.of();
    }
    List<Path> out = new java.util.ArrayList<>();
    List<String> args = server.args();
    for (int i = 0; i < Math.min(args.size(), MAX_ARGUMENTS_LOOKED_AT) && out.size() < MAX_ARGUMENT_FILES; i++) {
      String a = args.get(i);
      if (a.isEmpty() || a.startsWith("-")) {
        continue;
      }
      try {
        Path p = Path.of(a);
        if (!p.isAbsolute()) {
          p = server.cwd().map(Path::of).orElse(Path.of("")).toAbsolutePath().resolve(p);
        }
        if (Files.isRegularFile(p)) {
          out.add(p);
        }
      } catch (InvalidPathException | SecurityException e) {
        // not a path
      }
    }
    return List.copyOf(out);
  }

  /** Finds the executable {@code server} would run; empty when it cannot be found. */
  public Optional<Path> resolveExecutable(ServerDescription server, Map<String, String> effectiveEnv) {
    String command = server.command();
    if (server.transport() != Transport.STDIO || command.isBlank()) {
      return Optional.empty();
    }
    try {
      if (command.indexOf('/') >= 0 || command.indexOf(File.separatorChar) >= 0) {
        Path p = Path.of(command);
        if (!p.isAbsolute() && server.cwd().isPresent()) {
          p = Path.of(server.cwd().get()).resolve(p);
        }
        return executable(p.toAbsolutePath());
      }
      String path = effectiveEnv.containsKey("PATH") ? effectiveEnv.get("PATH") : hostEnv.getOrDefault("PATH", "");
      for (String dir : path.split(File.pathSeparator, -1)) {
        if (dir.isEmpty()) {
          continue;
        }
        Path candidate = Path.of(dir).resolve(command);
        if (candidate.isAbsolute()) {
          Optional<Path> found = executable(candidate);
          if (found.isPresent()) {
            return found;
          }
        }
      }
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static Optional<Path> executable(Path p) {
    return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
  }

  /**
   * {@code <real path>|<size>|<last-modified>} of the executable, or
   * {@link ExecutionIdentity#UNKNOWN_BINARY} when there is none or it cannot be read.
   */
  public static String fingerprint(Optional<Path> executable) {
    if (executable.isEmpty()) {
      return ExecutionIdentity.UNKNOWN_BINARY;
    }
    try {
      Path real = executable.get().toRealPath();
      BasicFileAttributes a = Files.readAttributes(real, BasicFileAttributes.class);
      if (!a.isRegularFile()) {
        return ExecutionIdentity.UNKNOWN_BINARY;
      }
      return real + "|" + a.size() + "|" + a.lastModifiedTime();
    } catch (IOException | SecurityException e) {
      return ExecutionIdentity.UNKNOWN_BINARY;
    }
  }
}
