package dev.cotenant.benchmarks;

import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The packaged command line ({@code cli/target/cotenant.jar}) that the daemon benchmarks run as
 * real processes: where it is, and the command lines of {@code cotenant serve},
 * {@code cotenant connect} and the other commands.
 *
 * <p>The jar is {@value #PROPERTY} when that system property is set, else
 * {@code cli/target/cotenant.jar} under the working directory or its parent (so both the
 * repository root and {@code benchmarks/} work). The shim's and the daemon's JVM options are read
 * from the jar itself ({@code dev.cotenant.cli.daemon.Shim.JVM_OPTIONS},
 * {@code dev.cotenant.cli.daemon.DaemonStarter.DAEMON_JVM_OPTIONS}), so a shim is measured with
 * exactly the options a routed entry carries, and a daemon with those a shim starts it with
 * (unless {@value #DAEMON_OPTIONS} gives others).
 */
final class CotenantJar {
  /** The system property naming the jar. */
  static final String PROPERTY = "cotenant.jar";
  /**
   * The system property that, when set, replaces the daemon's JVM options read from the jar
   * (space-separated), to measure other options without building again.
   */
  static final String DAEMON_OPTIONS = "cotenant.daemonOptions";

  final Path jar;
  final List<String> shimOptions;
  final List<String> daemonOptions;

  private CotenantJar(Path jar, List<String> shimOptions, List<String> daemonOptions) {
    this.jar = jar;
    this.shimOptions = List.copyOf(shimOptions);
    this.daemonOptions = List.copyOf(daemonOptions);
  }

  /** Finds the jar, or fails saying where it looked and how to build or name it. */
  static CotenantJar locate() {
    String named = System.getProperty(PROPERTY);
    Path cwd = Paths.get("").toAbsolutePath();
    List<Path> candidates = named != null && !named.isBlank()
        ? List.of(Paths.get(named).toAbsolutePath())
        : List.of(cwd.resolve("cli/target/cotenant.jar"), cwd.resolve("../cli/target/cotenant.jar").normalize());
    for (Path p : candidates) {
      if (Files.isRegularFile(p)) {
        return new CotenantJar(p, options(p, "dev.cotenant.cli.daemon.Shim", "JVM_OPTIONS"),
            daemonOptions(p));
      }
    }
    throw new IllegalStateException("cotenant.jar not found (looked at " + candidates + "): build it with"
        + " `mvn -B -o -q -DskipTests package` at the repository root and run from there, or name it with -D"
        + PROPERTY + "=PATH (through JMH: -jvmArgsAppend -D" + PROPERTY + "=PATH)");
  }

  private static List<String> daemonOptions(Path jar) {
    String given = System.getProperty(DAEMON_OPTIONS);
    if (given != null && !given.isBlank()) {
      return List.of(given.strip().split("\\s+"));
    }
    return options(jar, "dev.cotenant.cli.daemon.DaemonStarter", "DAEMON_JVM_OPTIONS");
  }

  /** The strings of the static list {@code field} of class {@code owner} in {@code jar} (public or not). */
  private static List<String> options(Path jar, String owner, String field) {
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      Class<?> c = Class.forName(owner, false, loader);
      Field f = c.getDeclaredField(field);
      f.setAccessible(true);
      List<String> out = new ArrayList<>();
      for (Object o : (List<?>) f.get(null)) {
        out.add((String) o);
      }
      return out;
    } catch (ReflectiveOperationException | java.io.IOException e) {
      throw new IllegalStateException(jar + " has no " + owner + "." + field + ": is it the cli module's"
          + " cotenant.jar of this version?", e);
    }
  }

  /** The repository root: the folder above {@code cli/target/} of the jar. */
  Path repositoryRoot() {
    return jar.getParent().getParent().getParent();
  }

  /** The {@code java} of this JVM. */
  static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** {@code java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar cotenant.jar ARGS}: a one-off command. */
  List<String> command(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar",
        jar.toString()));
    cmd.addAll(args);
    return cmd;
  }

  /** {@code java DAEMON_JVM_OPTIONS -jar cotenant.jar ARGS}: {@code cotenant serve} with the options a shim starts a daemon with. */
  List<String> daemon(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(daemonOptions);
    cmd.addAll(List.of("-jar", jar.toString()));
    cmd.addAll(args);
    return cmd;
  }

  /** {@code cotenant connect --no-start NAME CONFIG} as a routed entry runs it (the shim's JVM options). */
  List<String> shim(String server, Path config) {
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(shimOptions);
    cmd.addAll(List.of("-jar", jar.toString(), "connect", "--no-start", server, config.toString()));
    return cmd;
  }
}
