package dev.cotenant.gateway.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON configuration file read, modified and written under one lock hold: an in-process lock
 * plus an OS file lock on a sibling {@code .<name>.lock} file, so two writers in one process or
 * in two processes never interleave. The write is atomic (a temp file in the same directory,
 * fsync, rename), so a crash leaves either the old or the new file.
 */
public final class LockedJsonFile {
  private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();
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
    ReentrantLock local = IN_PROCESS.computeIfAbsent(file, k -> new ReentrantLock());
    local.lock();
    try {
      Path lockFile = file.resolveSibling("." + file.getFileName() + ".lock");
      try (FileChannel ch =
              FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = ch.lock()) {
        ObjectNode root = read(createIfMissing);
        ObjectNode before = root.deepCopy();
        T result = tx.apply(root);
        if (!root.equals(before)) {
          write(root);
        }
        return result;
      } catch (IOException e) {
        throw new ConfigException(file, "cannot lock or write: " + e.getMessage(), e);
      }
    } finally {
      local.unlock();
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

  private void write(ObjectNode root) throws IOException {
    byte[] bytes;
    try {
      bytes = MAPPER.writeValueAsBytes(root);
    } catch (JacksonException e) {
      throw new IOException("cannot serialise: " + e.getOriginalMessage(), e);
    }
    Path dir = file.getParent();
    Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(bytes));
        ch.write(java.nio.ByteBuffer.wrap(new byte[] {'\n'}));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (NoSuchFileException ignored) {
        // already renamed
      }
    }
  }
}
