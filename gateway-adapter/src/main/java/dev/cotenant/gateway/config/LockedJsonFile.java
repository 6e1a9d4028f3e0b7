package dev.cotenant.gateway.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON configuration file read, modified and written under one lock hold: an in-process lock
 * plus an OS file lock on a sibling {@code <name>.lock} file, so two writers in one process or in
 * two processes never interleave, and an atomic replacement, so a crash leaves either the old or
 * the new file (see {@code ConfigFileLock}).
 */
public final class LockedJsonFile {
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private final Path file;

  /** The file at {@code file} (it need not exist yet). */
  public LockedJsonFile(Path file) {
    this.file = file.toAbsolutePath().normalize();
  }

  /** The file. */
  public Path file() {
    return file;
  }

  /** What a transaction does with the loaded document. */
  @FunctionalInterface
  public interface Transaction<T> {
    /**
     * Reads and mutates {@code root}; return what the caller needs. Throwing aborts the write.
     */
    T apply(ObjectNode root) throws ConfigException;
  }

  /**
   * Runs {@code tx} inside one lock hold over the file's current content and writes the result
   * back (only when the document changed). A missing file starts as {@code {}} when
   * {@code createIfMissing}.
   */
  public <T> T update(boolean createIfMissing, Transaction<T> tx) throws ConfigException {
    try (ConfigFileLock held = ConfigFileLock.hold(file)) {
      ObjectNode root = read(createIfMissing);
      ObjectNode before = root.deepCopy();
      T result = tx.apply(root);
      if (!root.equals(before)) {
        held.replace(file, serialise(root));
      }
      return result;
    } catch (IOException e) {
      throw new ConfigException(file, "cannot lock or write: " + e.getMessage(), e);
    }
  }

  private ObjectNode read(boolean createIfMissing) throws ConfigException {
    if (createIfMissing && !Files.exists(file)) {
      return JsonNodeFactory.instance.objectNode();
    }
    JsonNode n = McpConfigReader.parse(file);
    if (!n.isObject()) {
      throw new ConfigException(file, "expected a JSON object at the top level, found " + McpConfigReader.kind(n));
    }
    return (ObjectNode) n;
  }

  private static byte[] serialise(ObjectNode root) throws IOException {
    try {
      byte[] json = MAPPER.writeValueAsBytes(root);
      byte[] out = java.util.Arrays.copyOf(json, json.length + 1);
      out[json.length] = '\n';
      return out;
    } catch (JacksonException e) {
      throw new IOException("cannot serialise: " + e.getOriginalMessage(), e);
    }
  }
}
