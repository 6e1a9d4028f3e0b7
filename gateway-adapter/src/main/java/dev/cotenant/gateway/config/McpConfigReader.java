package dev.cotenant.gateway.config;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads MCP server configuration files as hosts write them:
 *
 * <ul>
 *   <li>an {@code mcpServers} map (Claude Desktop, Cursor, Kiro, {@code .mcp.json}), where an
 *       entry has {@code command}/{@code args}/{@code env}/{@code cwd}, or {@code url} (with an
 *       optional {@code type}/{@code transport}) for a remote server, and may say
 *       {@code "disabled": true};
 *   <li>VS Code's {@code servers} map, where {@code type} is {@code stdio}, {@code http} or
 *       {@code sse}.
 * </ul>
 *
 * <p>Several files merge with provenance: the first file to define a name wins. Every problem is
 * a {@link ConfigException} whose one-line message names the file, the server and what is
 * wrong. Thread-safe.
 */
public final class McpConfigReader {
  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(200).maxDocumentLength(16L << 20).build())
                  .build())
          .build();

  /** Reads and merges {@code files} in order. */
  public ServerConfigs read(List<Path> files) throws ConfigException {
    Map<String, ConfiguredServer> merged = new LinkedHashMap<>();
    List<ConfiguredServer> shadowed = new ArrayList<>();
    for (Path file : files) {
      for (ConfiguredServer s : readFile(file)) {
        if (merged.containsKey(s.name())) {
          shadowed.add(s);
        } else {
          merged.put(s.name(), s);
        }
      }
    }
    return new ServerConfigs(files, merged, shadowed);
  }

  /** Reads the servers one file defines, in declaration order. */
  public List<ConfiguredServer> readFile(Path file) throws ConfigException {
    JsonNode root = parse(file);
    if (!root.isObject()) {
      throw new ConfigException(file, "expected a JSON object at the top level, found " + kind(root));
    }
    JsonNode mcpServers = root.get("mcpServers");
    JsonNode vscode = root.get("servers");
    if (mcpServers == null && vscode == null) {
      throw new ConfigException(file, "no \"mcpServers\" or \"servers\" map: this is not an MCP configuration file");
    }
    List<ConfiguredServer> out = new ArrayList<>();
    if (mcpServers != null) {
      readMap(file, "mcpServers", mcpServers, out);
    }
    if (vscode != null) {
      readMap(file, "servers", vscode, out);
    }
    return out;
  }

  /** Parses a JSON file, turning every failure into a one-line {@link ConfigException}. */
  public static JsonNode parse(Path file) throws ConfigException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file, "no such file", e);
    } catch (IOException e) {
      throw new ConfigException(file, "cannot read: " + e.getMessage(), e);
    }
    if (bytes.length == 0) {
      throw new ConfigException(file, "the file is empty; expected a JSON object");
    }
    try {
      JsonNode node = MAPPER.readTree(bytes);
      if (node == null || node.isMissingNode()) {
        throw new ConfigException(file, "the file holds no JSON value; expected a JSON object");
      }
      return node;
    } catch (JacksonException e) {
      throw new ConfigException(file, "malformed JSON" + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
    }
  }

  private static String where(TokenStreamLocation loc) {
    if (loc == null || loc.getLineNr() < 0) {
      return "";
    }
    return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  private static void readMap(Path file, String key, JsonNode map, List<ConfiguredServer> out) throws ConfigException {
    if (!map.isObject()) {
      throw new ConfigException(file, "\"" + key + "\" must be an object mapping names to servers, found " + kind(map));
    }
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      out.add(new ConfiguredServer(server(file, key, e.getKey(), e.getValue()), file));
    }
  }

  private static ServerDescription server(Path file, String mapKey, String name, JsonNode entry) throws ConfigException {
    String where = "server \"" + name + "\"";
    if (name.isEmpty()) {
      throw new ConfigException(file, "a server in \"" + mapKey + "\" has an empty name");
    }
    if (!entry.isObject()) {
      throw new ConfigException(file, where + " must be an object, found " + kind(entry));
    }
    Optional<String> command = optString(file, where, entry, "command");
    Optional<String> url = optString(file, where, entry, "url");
    Optional<String> type = optString(file, where, entry, "type");
    if (type.isEmpty()) {
      type = optString(file, where, entry, "transport");
    }
    Transport transport;
    if (type.isPresent()) {
      String t = type.get();
      transport =
          Transport.fromConfig(t)
              .orElseThrow(
                  () ->
                      new ConfigException(
                          file, where + " has unknown transport \"" + t + "\"; expected stdio, http, streamable-http or sse"));
    } else if (command.isPresent()) {
      transport = Transport.STDIO;
    } else if (url.isPresent()) {
      transport = Transport.HTTP;
    } else {
      throw new ConfigException(file, where + " has neither \"command\" nor \"url\"");
    }
    if (transport == Transport.STDIO && command.map(String::isBlank).orElse(true)) {
      throw new ConfigException(file, where + " is a stdio server without a \"command\"");
    }
    if (transport != Transport.STDIO && url.map(String::isBlank).orElse(true)) {
      throw new ConfigException(file, where + " is a " + transport.wireName() + " server without a \"url\"");
    }
    List<String> args = new ArrayList<>();
    JsonNode argsNode = entry.get("args");
    if (argsNode != null && !argsNode.isNull()) {
      if (!argsNode.isArray()) {
        throw new ConfigException(file, where + ": \"args\" must be an array of strings, found " + kind(argsNode));
      }
      for (JsonNode a : argsNode) {
        if (!a.isString()) {
          throw new ConfigException(file, where + ": \"args\" must hold strings only, found " + kind(a));
        }
        args.add(a.stringValue());
      }
    }
    Map<String, String> env = new LinkedHashMap<>();
    JsonNode envNode = entry.get("env");
    if (envNode != null && !envNode.isNull()) {
      if (!envNode.isObject()) {
        throw new ConfigException(file, where + ": \"env\" must be an object of strings, found " + kind(envNode));
      }
      for (Map.Entry<String, JsonNode> e : envNode.properties()) {
        JsonNode v = e.getValue();
        if (!(v.isString() || v.isNumber() || v.isBoolean())) {
          throw new ConfigException(file, where + ": env \"" + e.getKey() + "\" must be a string, found " + kind(v));
        }
        env.put(e.getKey(), v.asString());
      }
    }
    Optional<String> cwd = optString(file, where, entry, "cwd");
    boolean disabled = false;
    JsonNode dis = entry.get("disabled");
    if (dis != null && !dis.isNull()) {
      if (!dis.isBoolean()) {
        throw new ConfigException(file, where + ": \"disabled\" must be true or false, found " + kind(dis));
      }
      disabled = dis.booleanValue();
    }
    return new ServerDescription(
        name,
        transport,
        transport == Transport.STDIO ? command.orElseThrow() : command.orElse(""),
        args,
        cwd,
        env,
        url,
        !disabled);
  }

  private static Optional<String> optString(Path file, String where, JsonNode entry, String key) throws ConfigException {
    JsonNode n = entry.get(key);
    if (n == null || n.isNull()) {
      return Optional.empty();
    }
    if (!n.isString()) {
      throw new ConfigException(file, where + ": \"" + key + "\" must be a string, found " + kind(n));
    }
    return Optional.of(n.stringValue());
  }

  static String kind(JsonNode n) {
    if (n.isObject()) {
      return "an object";
    }
    if (n.isArray()) {
      return "an array";
    }
    if (n.isString()) {
      return "a string";
    }
    if (n.isNumber()) {
      return "a number";
    }
    if (n.isBoolean()) {
      return "a boolean";
    }
    if (n.isNull()) {
      return "null";
    }
    return n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }
}
