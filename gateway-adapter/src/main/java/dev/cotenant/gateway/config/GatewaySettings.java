package dev.cotenant.gateway.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Cotenant's section of an MCP configuration file: a top-level {@code "cotenant"} object that
 * other MCP hosts ignore.
 *
 * <pre>{@code
 * {"mcpServers": {...},
 *  "cotenant": {"sharing": false, "stubOverrides": {"echo": true}}}
 * }</pre>
 *
 * <p>{@code sharing} is the global sharing switch (co-tenancy for stubbed servers; default off);
 * {@code stubOverrides} maps a server name to whether it runs behind a 1:1 stub. Only an
 * operator turns {@code sharing} on; seeding writes {@code stubOverrides} only.
 */
public final class GatewaySettings {
  /** The top-level key of the section. */
  public static final String SECTION = "cotenant";

  private GatewaySettings() {}

  /** The section, created when absent. */
  public static ObjectNode section(Path file, ObjectNode root) throws ConfigException {
    JsonNode s = root.get(SECTION);
    if (s == null || s.isNull()) {
      return root.putObject(SECTION);
    }
    if (!s.isObject()) {
      throw new ConfigException(file, "\"" + SECTION + "\" must be an object, found " + McpConfigReader.kind(s));
    }
    return (ObjectNode) s;
  }

  /** The global sharing switch as written in {@code root}; off when absent. */
  public static boolean sharing(Path file, ObjectNode root) throws ConfigException {
    JsonNode s = root.get(SECTION);
    if (s == null || s.isNull()) {
      return false;
    }
    if (!s.isObject()) {
      throw new ConfigException(file, "\"" + SECTION + "\" must be an object, found " + McpConfigReader.kind(s));
    }
    JsonNode v = s.get("sharing");
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new ConfigException(file, "\"cotenant.sharing\" must be true or false, found " + McpConfigReader.kind(v));
    }
    return v.booleanValue();
  }

  /** The {@code stubOverrides} object, created when absent. */
  public static ObjectNode stubOverrides(Path file, ObjectNode root) throws ConfigException {
    ObjectNode section = section(file, root);
    JsonNode o = section.get("stubOverrides");
    if (o == null || o.isNull()) {
      return section.putObject("stubOverrides");
    }
    if (!o.isObject()) {
      throw new ConfigException(file, "\"cotenant.stubOverrides\" must be an object, found " + McpConfigReader.kind(o));
    }
    return (ObjectNode) o;
  }

  /** {@code stubOverrides} as a plain map of booleans (non-boolean values are skipped). */
  public static Map<String, Boolean> stubOverridesView(ObjectNode overrides) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : overrides.properties()) {
      if (e.getValue().isBoolean()) {
        out.put(e.getKey(), e.getValue().booleanValue());
      }
    }
    return out;
  }
}
