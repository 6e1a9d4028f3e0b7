package dev.cotenant.cli.route;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a routed entry starts {@code cotenant connect}: a command and the arguments that come
 * before {@code connect NAME SIDECAR} — the native shim with {@code --java JAVA --jar JAR} (see
 * {@link NativeShim}), {@code java} with fast-start options and {@code -jar cotenant.jar}, or a
 * launcher script alone. Every shape ends in {@code connect NAME SIDECAR}, which is how
 * {@link Router} recognises a routed entry.
 *
 * @param command the program the client starts
 * @param prefix the arguments before {@code connect}
 */
public record Launch(String command, List<String> prefix) {
  /**
   * The JVM options of a routed entry, which the JVM shim runs with: a fast start and a small
   * footprint, since one shim runs per client per server. Measured in {@code docs/performance.md}.
   * The heap may grow to 96 MiB for the largest message the socket carries (32 MiB).
   */
  public static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms2m",
      "-Xmx96m", "-Xss256k", "-XX:ReservedCodeCacheSize=8m", "-XX:CICompilerCount=1", "-XX:-UsePerfData");

  public Launch {
    Objects.requireNonNull(command, "command");
    prefix = List.copyOf(prefix);
  }

  /** {@code java} (the given binary) running {@code jar} with {@link #JVM_OPTIONS}. */
  public static Launch jar(String java, Path jar) {
    List<String> prefix = new ArrayList<>(JVM_OPTIONS);
    prefix.add("-jar");
    prefix.add(jar.toAbsolutePath().normalize().toString());
    return new Launch(java, prefix);
  }

  /**
   * The native shim {@code shim} ({@code cotenant-shim --java JAVA --jar JAR connect NAME
   * SIDECAR}): it relays the session itself and runs {@code java -jar JAR} only to start a daemon
   * when none runs.
   */
  public static Launch nativeShim(Path shim, String java, Path jar) {
    return new Launch(shim.toAbsolutePath().normalize().toString(),
        List.of("--java", java, "--jar", jar.toAbsolutePath().normalize().toString()));
  }

  /** A launcher (such as the {@code ./cotenant} script) that takes {@code connect} directly. */
  public static Launch launcher(String launcher) {
    return new Launch(launcher, List.of());
  }

  /**
   * The entry that replaces server {@code name}: {@code command} and {@code args}; {@code type}
   * {@code stdio} when {@code typed} (VS Code's {@code servers} map, or an entry that said so);
   * {@code env} with {@code COTENANT_HOME} when one was set, so the client's process reaches the
   * same daemon.
   */
  public ObjectNode entry(String name, Path sidecar, boolean typed, Optional<Path> cotenantHome) {
    ObjectNode e = JsonNodeFactory.instance.objectNode();
    if (typed) {
      e.put("type", "stdio");
    }
    e.put("command", command);
    ArrayNode args = e.putArray("args");
    prefix.forEach(args::add);
    args.add("connect");
    args.add(name);
    args.add(sidecar.toString());
    cotenantHome.ifPresent(h -> e.putObject("env").put("COTENANT_HOME", h.toString()));
    return e;
  }
}
