package dev.cotenant.cli.route;

import dev.cotenant.cli.route.RoutePlan.Kind;
import dev.cotenant.cli.route.RoutePlan.Outcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Plans routing and undoing, without IO: which entries of a client configuration launch
 * {@code cotenant connect} afterwards, which are restored, and why the others are left.
 *
 * <p>An entry is routed when it is an enabled stdio server whose launch the daemon can repeat
 * exactly from the sidecar. It is not routed when it is disabled, remote ({@code url}, or a
 * {@code type} other than {@code stdio}), launches {@code connect} already, uses {@code ${...}}
 * placeholders or an {@code envFile} (the client fills those in, the daemon would not), names a
 * relative command path or {@code cwd} (it would resolve against the sidecar's directory), has a
 * name that starts with {@code -} or holds a control character, is defined in both maps, or
 * when the sidecar already holds a different original under its name (an original is never
 * overwritten).
 *
 * <p>An entry is restored when it still launches {@code connect} through this sidecar exactly
 * as routing wrote it; an entry changed since is left, its original kept.
 */
public final class Router {
  private Router() {}

  /**
   * The plan to route {@code config}'s stdio servers through {@code sidecar}.
   *
   * @param stored the sidecar's current content, if it exists
   * @param cotenantHome the Cotenant home to pass to {@code connect}, when one was set explicitly
   */
  public static RoutePlan route(
      ConfigText config, Launch launch, Path sidecar, Optional<ObjectNode> stored, Optional<Path> cotenantHome) {
    return route(config, launch, sidecar, stored, cotenantHome, name -> Optional.empty());
  }

  /**
   * The plan to route those of {@code config}'s stdio servers that {@code direct} does not keep
   * direct: {@code direct} gives the reason a server stays as it is (its sessions would not share
   * a backend), or empty to route it.
   */
  public static RoutePlan route(ConfigText config, Launch launch, Path sidecar, Optional<ObjectNode> stored,
      Optional<Path> cotenantHome, java.util.function.Function<String, Optional<String>> direct) {
    ObjectNode originals = Sidecar.servers(stored);
    List<Outcome> outcomes = new ArrayList<>();
    Map<ConfigText.Slot, JsonNode> replacements = new LinkedHashMap<>();
    Map<String, JsonNode> added = new LinkedHashMap<>();
    Map<String, JsonNode> routedAs = new LinkedHashMap<>();
    Map<String, String> texts = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    forEachEntry(config, (map, name, entry) -> {
      boolean first = seen.add(name);
      Optional<String> skip = notRoutable(name, entry);
      if (skip.isEmpty() && routesAnywhere(entry, name)) {
        outcomes.add(new Outcome(name, Kind.ALREADY_ROUTED, ""));
        return;
      }
      if (skip.isEmpty() && !first) {
        skip = Optional.of("also defined earlier in the file; the sidecar holds one entry per name");
      }
      JsonNode kept = originals.get(name);
      if (skip.isEmpty() && kept != null && !kept.equals(entry)) {
        skip = Optional.of("the sidecar already holds a different original for this name; "
            + "remove it from the sidecar to route this entry");
      }
      if (skip.isEmpty()) {
        skip = direct.apply(name);
      }
      if (skip.isPresent()) {
        outcomes.add(new Outcome(name, Kind.NOT_ROUTED, skip.get()));
        return;
      }
      boolean typed = map.equals("servers") || entry.has("type") || entry.has("transport");
      ObjectNode routed = launch.entry(name, sidecar, typed, cotenantHome);
      ConfigText.Slot slot = new ConfigText.Slot(map, name);
      replacements.put(slot, routed);
      added.put(name, entry.deepCopy());
      routedAs.put(name, routed);
      config.textOf(slot).ifPresent(t -> texts.put(name, t));
      outcomes.add(new Outcome(name, Kind.ROUTED, ""));
    });
    return new RoutePlan(config.with(replacements), outcomes, added, routedAs, texts);
  }

  /** The plan to restore {@code config}'s entries routed through {@code sidecar}. */
  public static RoutePlan undo(ConfigText config, Path sidecar, Optional<ObjectNode> stored) {
    return undo(config, sidecar, stored, name -> true);
  }

  /** The plan to restore those of {@code config}'s entries routed through {@code sidecar} that {@code which} names. */
  public static RoutePlan undo(ConfigText config, Path sidecar, Optional<ObjectNode> stored,
      java.util.function.Predicate<String> which) {
    ObjectNode originals = Sidecar.servers(stored);
    ObjectNode routedAs = Sidecar.routedAs(stored);
    ObjectNode texts = Sidecar.originalTexts(stored);
    List<Outcome> outcomes = new ArrayList<>();
    Map<ConfigText.Slot, JsonNode> replacements = new LinkedHashMap<>();
    Map<ConfigText.Slot, String> verbatim = new LinkedHashMap<>();
    Map<String, JsonNode> restored = new LinkedHashMap<>();
    Set<String> inConfig = new HashSet<>();
    forEachEntry(config, (map, name, entry) -> {
      if (!inConfig.add(name) || !which.test(name)) {
        return;
      }
      JsonNode original = originals.get(name);
      JsonNode wrote = routedAs.get(name);
      boolean through = entry.isObject() && routesThrough(entry, name, sidecar);
      if (original == null) {
        if (through) {
          outcomes.add(new Outcome(name, Kind.LEFT, "launches connect through the sidecar, which holds no original for it"));
        }
        return;
      }
      if (entry.equals(original)) {
        restored.put(name, original);
        outcomes.add(new Outcome(name, Kind.RESTORED, ""));
      } else if (through && (wrote == null || wrote.equals(entry))) {
        ConfigText.Slot slot = new ConfigText.Slot(map, name);
        replacements.put(slot, original);
        // The original as the file held it (comments, trailing commas, one line), when the
        // sidecar kept it and it still reads as the original.
        JsonNode text = texts.get(name);
        if (text != null && text.isString() && ConfigText.reads(text.asString(), original)) {
          verbatim.put(slot, text.asString());
        }
        restored.put(name, original);
        outcomes.add(new Outcome(name, Kind.RESTORED, ""));
      } else {
        outcomes.add(new Outcome(name, Kind.LEFT, "changed since it was routed; its original stays in the sidecar"));
      }
    });
    for (Map.Entry<String, JsonNode> e : originals.properties()) {
      if (!inConfig.contains(e.getKey())) {
        outcomes.add(new Outcome(e.getKey(), Kind.LEFT, "no longer in the file; its original stays in the sidecar"));
      }
    }
    return new RoutePlan(config.with(replacements, verbatim), outcomes, restored, Map.of());
  }

  /** What is done with one server entry: the map that holds it, its name, and the entry itself. */
  @FunctionalInterface
  private interface EntryAction {
    void accept(String map, String name, JsonNode entry);
  }

  /** Runs {@code action} on each server entry of {@code config}, map by map in the order of {@link ConfigText#MAPS}. */
  private static void forEachEntry(ConfigText config, EntryAction action) {
    for (String map : ConfigText.MAPS) {
      Optional<ObjectNode> servers = config.map(map);
      if (servers.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, JsonNode> e : servers.get().properties()) {
        action.accept(map, e.getKey(), e.getValue());
      }
    }
  }

  /** Why {@code entry} cannot be routed, if it cannot. */
  private static Optional<String> notRoutable(String name, JsonNode entry) {
    if (!entry.isObject()) {
      return Optional.of("not an object");
    }
    if (name.codePoints().anyMatch(c -> Character.getType(c) == Character.CONTROL)) {
      return Optional.of("its name holds a control character; rename it");
    }
    JsonNode disabled = entry.get("disabled");
    if (disabled != null && disabled.isBoolean() && disabled.booleanValue()) {
      return Optional.of("disabled");
    }
    JsonNode type = entry.has("type") ? entry.get("type") : entry.get("transport");
    if (type != null && type.isString() && !type.stringValue().strip().toLowerCase(Locale.ROOT).equals("stdio")) {
      return Optional.of("remote (" + type.stringValue() + "): the client reaches it directly");
    }
    JsonNode command = entry.get("command");
    if (command == null || !command.isString() || command.stringValue().isBlank()) {
      return Optional.of(entry.has("url") ? "remote (url): the client reaches it directly" : "no \"command\"");
    }
    if (name.startsWith("-")) {
      return Optional.of("its name starts with \"-\", which connect would read as an option; rename it");
    }
    if (entry.has("envFile")) {
      return Optional.of("it has an \"envFile\", which the client reads and the daemon would not");
    }
    if (hasPlaceholder(entry)) {
      return Optional.of("it uses ${...} placeholders, which the client fills in and the daemon would not");
    }
    String c = command.stringValue();
    JsonNode cwd = entry.get("cwd");
    boolean relativeCommand = (c.contains("/") || c.contains(java.io.File.separator)) && !isAbsolute(c);
    boolean relativeCwd = cwd != null && cwd.isString() && !cwd.stringValue().isBlank() && !isAbsolute(cwd.stringValue());
    if (relativeCommand || relativeCwd) {
      return Optional.of("its " + (relativeCommand ? "command" : "cwd")
          + " is a relative path, which would resolve against the sidecar's directory; make it absolute");
    }
    return Optional.empty();
  }

  private static boolean isAbsolute(String path) {
    try {
      return Path.of(path).isAbsolute();
    } catch (java.nio.file.InvalidPathException e) {
      return false;
    }
  }

  private static boolean hasPlaceholder(JsonNode node) {
    if (node.isString()) {
      return node.stringValue().contains("${");
    }
    for (JsonNode child : node) {
      if (hasPlaceholder(child)) {
        return true;
      }
    }
    return false;
  }

  /** True when {@code entry}'s args hold {@code connect NAME} (through any sidecar). */
  static boolean routesAnywhere(JsonNode entry, String name) {
    return connectAt(name, args(entry)).isPresent();
  }

  /** True when {@code entry}'s args hold {@code connect NAME SIDECAR}. */
  static boolean routesThrough(JsonNode entry, String name, Path sidecar) {
    List<String> args = args(entry);
    return sidecarArgument(name, args).filter(s -> s.equals(sidecar.toString())).isPresent();
  }

  /**
   * Where {@code args} launch {@code connect NAME}: the index of {@code connect}, if they do. This
   * is the one place a routed entry is recognised, in a client file as {@code route} reads it and
   * in a server description as every other command reads it: whatever the command (the
   * {@code cotenant} launcher, {@code java -jar cotenant.jar}, or a native shim taking the same
   * arguments), an entry whose arguments hold {@code connect} followed by its own name is routed.
   */
  public static Optional<Integer> connectAt(String name, List<String> args) {
    for (int i = 0; i + 1 < args.size(); i++) {
      if (args.get(i).equals("connect") && args.get(i + 1).equals(name)) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /**
   * The sidecar a routed entry names, {@code SIDECAR} of {@code connect NAME SIDECAR}, as written;
   * empty when {@code args} do not launch {@code connect NAME}, or name nothing but an option
   * after it.
   */
  public static Optional<String> sidecarArgument(String name, List<String> args) {
    return connectAt(name, args).filter(at -> at + 2 < args.size()).map(at -> args.get(at + 2))
        .filter(s -> !s.isEmpty() && !s.startsWith("-"));
  }

  private static List<String> args(JsonNode entry) {
    List<String> out = new ArrayList<>();
    JsonNode args = entry.get("args");
    if (args != null && args.isArray()) {
      for (JsonNode a : args) {
        out.add(a.isString() ? a.stringValue() : "");
      }
    }
    return out;
  }
}
