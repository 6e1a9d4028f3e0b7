package dev.cotenant.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The facts evidence sources read from a server's handshake, taken from one caller's answer:
 * capability key paths and boolean flags, {@code experimental} keys, the negotiated protocol
 * version, {@code serverInfo}, and the tools with their annotations.
 *
 * <p>Capability paths join nested keys with {@code /}: {@code {"tools":{"listChanged":true}}}
 * yields the paths {@code tools} and {@code tools/listChanged} and the flag
 * {@code tools/listChanged=true}. Keys under {@code experimental} are listed in
 * {@link #experimentalKeys()} and not descended into.
 *
 * @param protocolVersion the negotiated protocol version, {@code ""} when none was reported
 * @param capabilityPaths every key path present in {@code capabilities}
 * @param capabilityFlags the boolean leaves of {@code capabilities} by path
 * @param experimentalKeys the keys of {@code capabilities.experimental}
 * @param serverInfo the {@code serverInfo} object as plain JSON
 * @param tools the tools {@code tools/list} produced, empty when it produced nothing
 */
public record HandshakeFacts(
    String protocolVersion,
    Set<String> capabilityPaths,
    Map<String, Boolean> capabilityFlags,
    Set<String> experimentalKeys,
    Map<String, Object> serverInfo,
    List<ToolFacts> tools) {

  /** Capability nesting deeper than this is not descended into. */
  public static final int MAX_CAPABILITY_DEPTH = 16;

  public HandshakeFacts {
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    capabilityPaths = Collections.unmodifiableSet(new TreeSet<>(capabilityPaths));
    capabilityFlags = Collections.unmodifiableMap(new TreeMap<>(capabilityFlags));
    experimentalKeys = Collections.unmodifiableSet(new TreeSet<>(experimentalKeys));
    serverInfo = Json.freezeMap(serverInfo);
    tools = List.copyOf(tools);
  }

  /**
   * Builds the facts from the raw JSON of a handshake answer.
   *
   * @param protocolVersion the negotiated version
   * @param capabilities the {@code capabilities} object as plain JSON
   * @param serverInfo the {@code serverInfo} object as plain JSON
   * @param tools the tools listed
   */
  public static HandshakeFacts fromJson(
      String protocolVersion, Map<String, ?> capabilities, Map<String, ?> serverInfo, List<ToolFacts> tools) {
    Set<String> paths = new TreeSet<>();
    Map<String, Boolean> flags = new TreeMap<>();
    Set<String> experimental = new TreeSet<>();
    walk("", capabilities, paths, flags, 0);
    Object exp = capabilities.get("experimental");
    if (exp instanceof Map<?, ?>) {
      for (Object k : ((Map<?, ?>) exp).keySet()) {
        experimental.add(String.valueOf(k));
      }
    }
    return new HandshakeFacts(protocolVersion, paths, flags, experimental, new LinkedHashMap<>(serverInfo), tools);
  }

  private static void walk(String prefix, Map<?, ?> node, Set<String> paths, Map<String, Boolean> flags, int depth) {
    if (depth >= MAX_CAPABILITY_DEPTH) {
      return;
    }
    for (Map.Entry<?, ?> e : node.entrySet()) {
      String path = prefix.isEmpty() ? String.valueOf(e.getKey()) : prefix + "/" + e.getKey();
      paths.add(path);
      Object v = e.getValue();
      if (v instanceof Boolean) {
        flags.put(path, (Boolean) v);
      } else if (v instanceof Map<?, ?> && !"experimental".equals(path)) {
        walk(path, (Map<?, ?>) v, paths, flags, depth + 1);
      }
    }
  }

  /** True when the capability key path is present, whatever its value ({@code {"logging":{}}} counts). */
  public boolean hasCapability(String path) {
    return capabilityPaths.contains(path);
  }

  /** What the server called its own version ({@code serverInfo.version}), if it reported a string. */
  public Optional<String> reportedVersion() {
    Object v = serverInfo.get("version");
    return v instanceof String ? Optional.of((String) v) : Optional.empty();
  }

  /** True when some tool carries an {@code annotations} object. */
  public boolean anyToolAnnotated() {
    for (ToolFacts t : tools) {
      if (t.annotations().isPresent()) {
        return true;
      }
    }
    return false;
  }
}
