package dev.cotenant.cli.route;


import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The file that keeps the original entries of one routed client configuration, where
 * {@code cotenant connect NAME SIDECAR} has the daemon read them: an ordinary MCP configuration
 * file ({@link McpConfigReader} reads its {@code mcpServers} and ignores the rest),
 *
 * <pre>{"routedFrom": "/abs/client.json", "mcpServers": {NAME: original, ...}, "routedAs": {NAME: routed entry, ...},
 *  "originalTexts": {NAME: "the original as the client file held it", ...}}</pre>
 *
 * <p>It lives at {@code COTENANT_HOME/routes/<name>-<12 hex>.json} (the client file's name
 * without a leading dot and a {@code .json} ending, then the first 12 hex digits of the SHA-256
 * of its absolute path). The file is mode 0600 (an {@code env} may hold secrets), a directory
 * it creates 0700. Every change is made under the file's lock and written atomically
 * ({@link LockedJsonFile}); an original is only ever added when none is kept under its name, and
 * only ever removed once it is back in the client configuration.
 */
public final class Sidecar {
  private final Path file;
  private final Path routedFrom;

  /** The sidecar at {@code file} of the client configuration {@code routedFrom}. */
  public Sidecar(Path file, Path routedFrom) {
    this.file = file.toAbsolutePath().normalize();
    this.routedFrom = routedFrom.toAbsolutePath().normalize();
  }

  /** The sidecar of the client configuration {@code config}, in Cotenant's home {@code home}. */
  public static Sidecar of(Path config, Path home) {
    Path abs = config.toAbsolutePath().normalize();
    String name = String.valueOf(abs.getFileName());
    while (name.startsWith(".")) {
      name = name.substring(1);
    }
    if (name.endsWith(".json")) {
      name = name.substring(0, name.length() - ".json".length());
    }
    name = name.replaceAll("[^A-Za-z0-9._-]", "_");
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(abs.toString().getBytes(StandardCharsets.UTF_8));
      String hex = HexFormat.of().formatHex(hash).substring(0, 12);
      return new Sidecar(home.resolve("routes").resolve((name.isEmpty() ? "mcp" : name) + "-" + hex + ".json"), abs);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The sidecar file. */
  public Path file() {
    return file;
  }

  /**
   * The sidecar's content, or empty when it does not exist.
   *
   * @throws ConfigException when it cannot be read, is malformed, or belongs to another file
   */
  public Optional<ObjectNode> read() throws ConfigException {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    JsonNode n = McpConfigReader.parse(file);
    if (!n.isObject()) {
      throw new ConfigException(file, "expected a JSON object at the top level");
    }
    check((ObjectNode) n);
    return Optional.of((ObjectNode) n);
  }

  /** The {@code mcpServers} of a sidecar's content (empty when none). */
  static ObjectNode servers(Optional<ObjectNode> content) {
    return child(content, "mcpServers");
  }

  /** The {@code originalTexts} of a sidecar's content (empty when none): each original as the file held it. */
  static ObjectNode originalTexts(Optional<ObjectNode> content) {
    return child(content, "originalTexts");
  }

  /** The {@code routedAs} of a sidecar's content (empty when none). */
  static ObjectNode routedAs(Optional<ObjectNode> content) {
    return child(content, "routedAs");
  }

  private static ObjectNode child(Optional<ObjectNode> content, String key) {
    JsonNode n = content.map(c -> c.get(key)).orElse(null);
    return n != null && n.isObject() ? (ObjectNode) n : JsonNodeFactory.instance.objectNode();
  }

  /**
   * Adds the plan's originals and routed entries, creating the sidecar (and its directory) when
   * missing.
   *
   * @throws ConfigException when a different original is kept under one of the names (nothing
   *     is written), or the sidecar cannot be read or written
   */
  public void add(RoutePlan plan) throws ConfigException {
    try {
      createDirectory(file.getParent());
    } catch (IOException e) {
      throw new ConfigException(file, "cannot create its directory: " + e.getMessage(), e);
    }
    new LockedJsonFile(file).update(true, root -> {
      check(root);
      if (!root.has("routedFrom")) {
        root.put("routedFrom", routedFrom.toString());
      }
      ObjectNode servers = objectAt(root, "mcpServers");
      ObjectNode as = objectAt(root, "routedAs");
      ObjectNode texts = objectAt(root, "originalTexts");
      for (Map.Entry<String, JsonNode> e : plan.originals().entrySet()) {
        JsonNode kept = servers.get(e.getKey());
        if (kept != null && !kept.equals(e.getValue())) {
          throw new ConfigException(file, "already holds a different original for \"" + e.getKey()
              + "\" (it changed since it was read); nothing was written. Run the command again");
        }
        servers.set(e.getKey(), e.getValue().deepCopy());
        as.set(e.getKey(), plan.routedAs().get(e.getKey()).deepCopy());
        String text = plan.originalTexts().get(e.getKey());
        if (text != null && (kept == null || !texts.has(e.getKey()))) {
          texts.put(e.getKey(), text);
        }
      }
      return null;
    });
    restrict();
  }

  /**
   * Takes the {@code restored} originals out (each only while it is still the one kept), and
   * deletes the sidecar when no original is left.
   *
   * @return true when the sidecar was deleted
   * @throws ConfigException when the sidecar cannot be read, written or deleted
   */
  public boolean remove(Map<String, JsonNode> restored) throws ConfigException {
    if (!Files.exists(file)) {
      return false;
    }
    return new LockedJsonFile(file).update(false, root -> {
      check(root);
      if (!(root.get("mcpServers") instanceof ObjectNode servers)) {
        return false;
      }
      long left = servers.properties().stream()
          .filter(e -> !e.getValue().equals(restored.get(e.getKey())))
          .count();
      if (left == 0) {
        try {
          Files.delete(file);
        } catch (IOException e) {
          throw new ConfigException(file, "cannot delete: " + e.getMessage(), e);
        }
        return true;
      }
      restored.forEach((name, original) -> {
        if (original.equals(servers.get(name))) {
          servers.remove(name);
          if (root.get("routedAs") instanceof ObjectNode as) {
            as.remove(name);
          }
          if (root.get("originalTexts") instanceof ObjectNode texts) {
            texts.remove(name);
          }
        }
      });
      return false;
    });
  }

  private void check(ObjectNode root) throws ConfigException {
    JsonNode from = root.get("routedFrom");
    if (from != null && !(from.isString() && Objects.equals(from.stringValue(), routedFrom.toString()))) {
      throw new ConfigException(file, "keeps the originals of " + from + ", not of " + routedFrom
          + "; move it away to route this file");
    }
    for (String key : new String[] {"mcpServers", "routedAs"}) {
      JsonNode n = root.get(key);
      if (n != null && !n.isObject()) {
        throw new ConfigException(file, "\"" + key + "\" must be an object");
      }
    }
  }

  private static ObjectNode objectAt(ObjectNode root, String key) {
    JsonNode n = root.get(key);
    return n instanceof ObjectNode o ? o : root.putObject(key);
  }

  /** Mode 0600: the originals' {@code env} may hold secrets. */
  private void restrict() throws ConfigException {
    if (Files.getFileAttributeView(file, PosixFileAttributeView.class) == null) {
      return;
    }
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new ConfigException(file, "cannot make it private (mode 0600): " + e.getMessage(), e);
    }
  }

  /** The home's {@code routes/}, made 0700 (and a missing home with it: {@link PrivateFiles}). */
  private static void createDirectory(Path dir) throws IOException {
    PrivateFiles.create(dir.getParent());
    PrivateFiles.directory(dir);
  }
}
