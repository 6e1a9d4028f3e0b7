package dev.cotenant.gateway.config;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
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
 * <p>Files are JSONC, as VS Code writes them: {@code //} and {@code /* *}{@code /} comments and
 * trailing commas are accepted. Only a regular file of at most {@value #MAX_BYTES} bytes is read
 * (a FIFO or a device is refused before any byte is read). A {@code command} that is a relative
 * path with a separator ({@code bin/server}, {@code ./run.sh}) and a relative {@code cwd} are
 * resolved against the directory of the file that names them, so a configuration works from
 * any working directory; a bare command name ({@code node}) is looked up on the {@code PATH} as
 * usual.
 *
 * <p>Several files merge with provenance: the first file to define a name wins. Every problem is
 * a {@link ConfigException} whose one-line message names the file, the server and what is
 * wrong, except a server name with a control character, which is refused on its own
 * ({@link ServerConfigs#refused()}) without breaking the file's other servers. Thread-safe.
 */
public final class McpConfigReader {
  /** The largest configuration file read. */
  public static final long MAX_BYTES = 16L << 20;

  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
                  .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(200).maxDocumentLength(MAX_BYTES).build())
                  .build())
          .build();

  /** Reads and merges {@code files} in order; servers refused by name are listed, not fatal. */
  public ServerConfigs read(List<Path> files) throws ConfigException {
    Map<String, ConfiguredServer> merged = new LinkedHashMap<>();
    List<ConfiguredServer> shadowed = new ArrayList<>();
    List<RefusedServer> refused = new ArrayList<>();
    for (Path file : files) {
      for (ConfiguredServer s : readFile(file, refused)) {
        if (merged.containsKey(s.name())) {
          shadowed.add(s);
        } else {
          merged.put(s.name(), s);
        }
      }
    }
    return new ServerConfigs(files, merged, shadowed, refused);
  }

  /**
   * Reads the servers one file defines, in declaration order.
   *
   * @throws ConfigException also when a server is refused by name (see {@link #read} to read the
   *     others anyway)
   */
  public List<ConfiguredServer> readFile(Path file) throws ConfigException {
    List<RefusedServer> refused = new ArrayList<>();
    List<ConfiguredServer> out = readFile(file, refused);
    if (!refused.isEmpty()) {
      throw new ConfigException(file, refused.get(0).reason());
    }
    return out;
  }

  private List<ConfiguredServer> readFile(Path file, List<RefusedServer> refused) throws ConfigException {
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
      readMap(file, "mcpServers", mcpServers, out, refused);
    }
    if (vscode != null) {
      readMap(file, "servers", vscode, out, refused);
    }
    return out;
  }

  /** Parses a JSON file, turning every failure into a one-line {@link ConfigException}. */
  public static JsonNode parse(Path file) throws ConfigException {
    byte[] bytes;
    try {
      BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
      if (attrs.isDirectory()) {
        throw new ConfigException(file, "is a directory; expected a JSON file");
      }
      if (!attrs.isRegularFile()) {
        throw new ConfigException(file, "not a regular file (a FIFO, a socket or a device); expected a JSON file");
      }
      if (attrs.size() > MAX_BYTES) {
        throw tooLarge(file, attrs.size());
      }
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes((int) MAX_BYTES + 1);
      }
      if (bytes.length > MAX_BYTES) {
        throw tooLarge(file, bytes.length);
      }
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

  private static ConfigException tooLarge(Path file, long size) {
    return new ConfigException(file, "the file is too large (" + size + " bytes; at most " + MAX_BYTES
        + " are read); an MCP configuration file is a few kilobytes");
  }

  private static String where(TokenStreamLocation loc) {
    if (loc == null || loc.getLineNr() < 0) {
      return "";
    }
    return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  private static void readMap(Path file, String key, JsonNode map, List<ConfiguredServer> out, List<RefusedServer> refused)
      throws ConfigException {
    if (!map.isObject()) {
      throw new ConfigException(file, "\"" + key + "\" must be an object mapping names to servers, found " + kind(map));
    }
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      String name = e.getKey();
      int control = name.codePoints().filter(c -> Character.getType(c) == Character.CONTROL).findFirst().orElse(-1);
      if (control >= 0) {
        refused.add(new RefusedServer(file, name, "server \"" + dev.cotenant.api.LogSafe.escape(name, 120)
            + "\" is refused: its name holds the control character " + String.format("U+%04X", control)
            + "; rename it"));
        continue;
      }
      out.add(new ConfiguredServer(server(file, key, name, e.getValue()), file));
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
        if (!v.isString()) {
          String hint = v.isNumber() || v.isBoolean() ? " (quote it: \"" + v.asString() + "\")" : "";
          throw new ConfigException(file, where + ": env \"" + dev.cotenant.api.LogSafe.escape(e.getKey(), 120)
              + "\" must be a string" + hint + ", found " + kind(v));
        }
        env.put(e.getKey(), v.stringValue());
      }
    }
    Path base = file.toAbsolutePath().getParent();
    Optional<String> cwd = optString(file, where, entry, "cwd");
    try {
      if (command.isPresent() && isRelativePath(command.get())) {
        command = Optional.of(base.resolve(command.get()).normalize().toString());
      }
      cwd = cwd.map(c -> relativeTo(base, c));
    } catch (java.nio.file.InvalidPathException e) {
      throw new ConfigException(file, where + ": \"command\" or \"cwd\" is not a valid path: "
          + dev.cotenant.api.LogSafe.escape(e.getReason(), 120));
    }
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

  /** A relative path with a separator ({@code bin/x}, {@code ./x}); a bare name is a PATH lookup. */
  private static boolean isRelativePath(String command) {
    return (command.contains("/") || command.contains(java.io.File.separator)) && !Path.of(command).isAbsolute();
  }

  private static String relativeTo(Path base, String path) {
    return path.isBlank() || Path.of(path).isAbsolute() ? path : base.resolve(path).normalize().toString();
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
    return switch (n.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
