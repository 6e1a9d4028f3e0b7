package dev.cotenant.gateway.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON configuration file read, modified and written under one lock hold: an in-process lock
 * plus an OS file lock (on a lock file in a private directory under the system's temporary
 * directory, never beside the user's file), so two writers in one process or in two processes
 * never interleave, and an atomic replacement, so a crash leaves either the old or the new file
 * (see {@code ConfigFileLock}). The user's file is respected: written through a symbolic link to
 * its target, with its permission bits, indentation, colon spacing and line endings kept; a file
 * with comments is never rewritten (they would be lost), the caller gets an error instead.
 */
public final class LockedJsonFile {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  /** Standard JSON plus trailing commas: a file this refuses but the reader accepts has comments. */
  private static final JsonMapper NO_COMMENTS =
      JsonMapper.builder(tools.jackson.core.json.JsonFactory.builder()
              .enable(tools.jackson.core.json.JsonReadFeature.ALLOW_TRAILING_COMMA).build())
          .build();

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
      // An edit that lands while the new text is made (an editor takes no lock) is not lost: the
      // transaction runs again on the file as it is now, up to three times.
      for (int attempt = 1; ; attempt++) {
        boolean exists = Files.exists(file);
        byte[] read = exists ? Files.readAllBytes(file) : new byte[0];
        ObjectNode root = read(createIfMissing);
        ObjectNode before = root.deepCopy();
        T result = tx.apply(root);
        if (root.equals(before)) {
          return result;
        }
        String text = new String(read, java.nio.charset.StandardCharsets.UTF_8);
        if (exists && hasComments(text)) {
          throw new ConfigException(file, "holds comments, which rewriting it would lose; nothing was written. "
              + "Add the \"cotenant\" section by hand, or remove the comments and run again");
        }
        try {
          held.replace(file, serialise(root, exists ? JsonLayout.of(text) : JsonLayout.DEFAULT), read);
          return result;
        } catch (ConfigFileLock.ChangedMeanwhile e) {
          if (attempt == 3) {
            throw new ConfigException(file, "kept changing while it was written; nothing was written. Run again", e);
          }
        }
      }
    } catch (IOException e) {
      throw new ConfigException(file, "cannot lock or write: " + e.getMessage(), e);
    }
  }

  /**
   * Replaces the file's text with {@code replacement}, provided it still reads exactly as
   * {@code expected}: under the same lock as {@link #update}, by an atomic rename of a synced
   * temporary file beside the target (at the target of a symbolic link, keeping its permission
   * bits). For an edit that keeps the rest of the text as it is, comments included.
   *
   * @throws ConfigException when the file changed since it was read (nothing is written), or
   *     cannot be read, locked or written
   */
  public void replaceText(String expected, String replacement) throws ConfigException {
    try (ConfigFileLock held = ConfigFileLock.hold(file)) {
      String now = Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
      if (!now.equals(expected)) {
        throw new ConfigException(file, "changed since it was read; nothing was written. Run the command again");
      }
      held.replace(file, replacement.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          now.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (ConfigFileLock.ChangedMeanwhile e) {
      throw new ConfigException(file, "changed while it was written; nothing was written. Run the command again", e);
    } catch (IOException e) {
      throw new ConfigException(file, "cannot read, lock or write: " + e.getMessage(), e);
    }
  }

  private static boolean hasComments(String text) {
    try {
      NO_COMMENTS.readTree(text);
      return false;
    } catch (JacksonException e) {
      return true; // the reader accepted it (read() above), so what the strict parser refused is a comment
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

  private static byte[] serialise(ObjectNode root, JsonLayout layout) throws IOException {
    try {
      String json = MAPPER.writer().with(layout.printer()).writeValueAsString(root);
      return (layout.finalNewline() ? json + layout.eol() : json).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    } catch (JacksonException e) {
      throw new IOException("cannot serialise: " + e.getOriginalMessage(), e);
    }
  }
}
