package dev.cotenant.gateway.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an {@code npx} launch would run, found without the network: the sandbox has none, and
 * {@code npx} asks the registry for a package's metadata on every start, even when the package is
 * installed. So {@code npx [-y] PACKAGE ARGS...} is read the way {@code npm exec} reads it, and
 * the package's executable is looked up where {@code npm exec} would find it installed:
 *
 * <ol>
 *   <li>the project of the working directory: {@code node_modules/PACKAGE} in it or a directory
 *       above it (a version in the spec must match the installed one exactly);
 *   <li>npm's npx cache: {@code CACHE/_npx/HASH/node_modules/PACKAGE}, where {@code CACHE} is
 *       {@code npm_config_cache} or {@code ~/.npm} and {@code HASH} is npm's own key of the
 *       package specs (the first 16 hex digits of the SHA-512 of the specs, sorted, one per line),
 *       so a spec finds exactly the directory {@code npx} installed it to.
 * </ol>
 *
 * <p>The launch then runs {@code node_modules/.bin/BIN} with the same arguments and that
 * {@code .bin} directory first on the {@code PATH}, as {@code npm exec} does. The installed
 * version is the one the operator's {@code npx} last installed; a newer release it would fetch
 * is not seen (the pre-flight cache keys on the version the server reports, so it is told apart).
 * A launch that names no package installed in either place, or that uses what this reading does
 * not know ({@code -c}, a path, a git or tarball spec, an unknown option), is not resolved.
 */
final class NpxLaunch {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private NpxLaunch() {}

  /** A resolved launch: the executable, its arguments, the {@code .bin} directory, and where it was found. */
  record Resolved(String command, List<String> args, Path binDirectory, String from) {}

  /**
   * The outcome: a resolved launch, or why there is none (a launch that is not {@code npx} has
   * neither).
   */
  record Outcome(Optional<Resolved> resolved, Optional<String> why) {
    static final Outcome NOT_NPX = new Outcome(Optional.empty(), Optional.empty());

    static Outcome unresolved(String why) {
      return new Outcome(Optional.empty(), Optional.of(why));
    }
  }

  /** Whether {@code command} is {@code npx} (by name or path). */
  static boolean isNpx(String command) {
    String name = Path.of(command).getFileName() == null ? command : Path.of(command).getFileName().toString();
    return name.equals("npx");
  }

  /**
   * Resolves an {@code npx} launch.
   *
   * @param command the configured command
   * @param args the configured arguments
   * @param env the server's own env entries (they win over the process's)
   * @param cwd the server's working directory
   */
  static Outcome resolve(String command, List<String> args, Map<String, String> env, Path cwd) {
    if (!isNpx(command)) {
      return Outcome.NOT_NPX;
    }
    List<String> packages = new ArrayList<>();
    Iterator<String> it = args.iterator();
    String first = null;
    while (it.hasNext()) {
      String a = it.next();
      if (a.equals("--")) {
        first = it.hasNext() ? it.next() : null;
        break;
      }
      if (a.equals("-y") || a.equals("--yes") || a.equals("-q") || a.equals("--quiet") || a.equals("--silent")
          || a.startsWith("--yes=") || a.startsWith("--loglevel=")) {
        continue;
      }
      if (a.equals("-p") || a.equals("--package")) {
        if (!it.hasNext()) {
          return Outcome.unresolved("npx " + a + " names no package");
        }
        packages.add(it.next());
        continue;
      }
      if (a.startsWith("--package=")) {
        packages.add(a.substring("--package=".length()));
        continue;
      }
      if (a.startsWith("-")) {
        return Outcome.unresolved("npx option " + a + " is not read here");
      }
      first = a;
      break;
    }
    if (first == null) {
      return Outcome.unresolved("npx names no package");
    }
    List<String> rest = new ArrayList<>();
    it.forEachRemaining(rest::add);
    boolean named = !packages.isEmpty();
    if (!named) {
      packages.add(first);
    }
    List<Spec> specs = new ArrayList<>();
    for (String p : packages) {
      Optional<Spec> s = Spec.parse(p);
      if (s.isEmpty()) {
        return Outcome.unresolved("npx package " + p + " is not a registry package name");
      }
      specs.add(s.get());
    }
    // With --package, the first word is the executable; without, the one package's own.
    Optional<String> binName = named ? Optional.of(first) : Optional.empty();
    Spec main = specs.get(0);
    if (specs.size() == 1 && !main.range()) {
      Optional<Resolved> local = local(main, binName, rest, cwd);
      if (local.isPresent()) {
        return new Outcome(local, Optional.empty());
      }
    }
    Path cache = cache(env);
    Path dir = cache.resolve("_npx").resolve(hash(packages)).resolve("node_modules");
    Optional<Resolved> cached = found(dir, main, binName, rest, "npm's npx cache (" + dir.getParent() + ")");
    if (cached.isPresent()) {
      return new Outcome(cached, Optional.empty());
    }
    return Outcome.unresolved(String.join(" ", packages) + " is not installed in npm's npx cache (" + cache.resolve("_npx")
        + "), and the sandbox has no network to fetch it; start it once with npx outside the sandbox, then try again");
  }

  /** npm's key of an npx install: the first 16 hex digits of the SHA-512 of the sorted specs, one per line. */
  static String hash(List<String> packages) {
    List<String> sorted = new ArrayList<>(packages);
    sorted.sort(String::compareTo);
    try {
      byte[] d = MessageDigest.getInstance("SHA-512").digest(String.join("\n", sorted).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-512 in this JDK", e);
    }
  }

  private static Path cache(Map<String, String> env) {
    String c = env.getOrDefault("npm_config_cache", System.getenv("npm_config_cache"));
    if (c != null && !c.isBlank()) {
      return Path.of(c).toAbsolutePath().normalize();
    }
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    return Path.of(home, ".npm").toAbsolutePath().normalize();
  }

  private static Optional<Resolved> local(Spec spec, Optional<String> binName, List<String> rest, Path cwd) {
    for (Path d = cwd.toAbsolutePath().normalize(); d != null; d = d.getParent()) {
      Path nm = d.resolve("node_modules");
      Optional<Resolved> r = found(nm, spec, binName, rest, "the project at " + d);
      if (r.isPresent()) {
        return r;
      }
    }
    return Optional.empty();
  }

  private static Optional<Resolved> found(Path nodeModules, Spec spec, Optional<String> binName, List<String> rest, String from) {
    Path manifest = nodeModules.resolve(spec.name()).resolve("package.json");
    if (!Files.isRegularFile(manifest)) {
      return Optional.empty();
    }
    JsonNode m;
    try {
      m = JSON.readTree(Files.readString(manifest));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    if (spec.version().isPresent() && !spec.version().get().equals(m.path("version").asString(""))) {
      return Optional.empty();
    }
    Optional<String> bin = binName.isPresent() ? binName : binOf(spec.name(), m.path("bin"));
    if (bin.isEmpty()) {
      return Optional.empty();
    }
    Path binDir = nodeModules.resolve(".bin");
    Path exe = binDir.resolve(bin.get());
    if (!Files.isExecutable(exe)) {
      return Optional.empty();
    }
    return Optional.of(new Resolved(exe.toString(), List.copyOf(rest), binDir, from));
  }

  /** The executable {@code npm exec} runs for a package: its one bin, else the bin named after it. */
  private static Optional<String> binOf(String name, JsonNode bin) {
    String unscoped = name.contains("/") ? name.substring(name.indexOf('/') + 1) : name;
    if (bin.isString()) {
      return Optional.of(unscoped);
    }
    if (!bin.isObject() || bin.isEmpty()) {
      return Optional.empty();
    }
    if (bin.size() == 1) {
      return Optional.of(bin.propertyNames().iterator().next());
    }
    return bin.has(unscoped) ? Optional.of(unscoped) : Optional.empty();
  }

  /**
   * A registry package spec: a name; the version when it is exact; whether it is a range or a
   * tag other than {@code latest} (then only the npx cache, keyed by the spec itself, is used).
   */
  record Spec(String name, Optional<String> version, boolean range) {
    private static final java.util.regex.Pattern NAME =
        java.util.regex.Pattern.compile("(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*");
    private static final java.util.regex.Pattern EXACT = java.util.regex.Pattern.compile("\\d+\\.\\d+\\.\\d+([-+][0-9A-Za-z.+-]*)?");

    static Optional<Spec> parse(String spec) {
      int at = spec.indexOf('@', 1);
      String name = at < 0 ? spec : spec.substring(0, at);
      String version = at < 0 ? "" : spec.substring(at + 1);
      if (!NAME.matcher(name).matches()) {
        return Optional.empty();
      }
      if (version.isEmpty() || version.equals("latest")) {
        return Optional.of(new Spec(name, Optional.empty(), false));
      }
      boolean exact = EXACT.matcher(version).matches();
      return Optional.of(new Spec(name, exact ? Optional.of(version) : Optional.empty(), !exact));
    }
  }
}
