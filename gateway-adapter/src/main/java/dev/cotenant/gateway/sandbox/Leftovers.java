package dev.cotenant.gateway.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Removing private directories, and the sweep of those a killed process left, so that neither
 * can be turned against anything else: a server that outlived its probe, or any process that can
 * write in such a directory, may swap a directory for a symbolic link at any moment.
 *
 * <ul>
 *   <li>Removal never follows a symbolic link and never leaves the directory it was given: on
 *       Linux every step is relative to an open directory ({@link SecureDirectoryStream}: each
 *       directory is opened without following a link, and each entry, a link as a link, is
 *       unlinked inside the directory that was opened); elsewhere a walk that does not follow
 *       links and refuses any directory whose real path is outside the one it was given.
 *   <li>The sweep removes a directory named {@code <prefix><pid>-...} only when the process
 *       {@code pid} is gone <em>and</em> its {@value #LOCK} file is not locked: bubblewrap holds
 *       that lock ({@code --lock-file}) for as long as anything runs in the sandbox, so a
 *       directory whose processes are alive is never removed. Only directories of this user are
 *       looked at.
 * </ul>
 */
final class Leftovers {
  /** The name of the lock file in a private directory. */
  static final String LOCK = "lock";

  private Leftovers() {}

  /**
   * Removes the directories named {@code <prefix><pid>-...} in {@code temp} that are left over:
   * whose process {@code pid} is gone and whose {@value #LOCK} file nothing holds.
   */
  static void sweep(Path temp, String prefix) {
    Optional<Integer> uid = HostBoundary.uid();
    List<Path> candidates = new ArrayList<>();
    try (Stream<Path> entries = Files.list(temp)) {
      entries.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(candidates::add);
    } catch (IOException e) {
      return;
    }
    for (Path p : candidates) {
      String rest = p.getFileName().toString().substring(prefix.length());
      int dash = rest.indexOf('-');
      if (dash <= 0) {
        continue;
      }
      long pid;
      try {
        pid = Long.parseLong(rest.substring(0, dash));
      } catch (NumberFormatException e) {
        continue;
      }
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) || !ours(p, uid) || locked(p.resolve(LOCK))) {
        continue;
      }
      delete(p);
    }
  }

  private static boolean ours(Path p, Optional<Integer> uid) {
    try {
      if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      return uid.isEmpty() || uid.get().equals(Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS));
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * True when another process holds a lock on {@code lock}: a sandbox still runs. A lock file
   * that is a link, or cannot be opened, counts as held (the directory is left alone); a missing
   * one as free.
   */
  static boolean locked(Path lock) {
    if (!Files.exists(lock, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (!Files.isRegularFile(lock, LinkOption.NOFOLLOW_LINKS)) {
      return true;
    }
    try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      FileLock held = ch.tryLock();
      if (held == null) {
        return true;
      }
      held.release();
      return false;
    } catch (OverlappingFileLockException e) {
      return true;
    } catch (IOException e) {
      return true;
    }
  }

  /** Removes {@code dir} and everything in it, as far as it can; never follows a link; a missing {@code dir} is no error. */
  static void delete(Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    if (parent == null || abs.getFileName() == null) {
      return;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent)) {
      if (ds instanceof SecureDirectoryStream<Path> sds) {
        removeEntry(sds, abs.getFileName());
        return;
      }
    } catch (IOException e) {
      return;
    }
    walkDelete(abs);
  }

  /** Removes {@code name} in the open directory {@code in}: a directory after its entries, anything else as itself. */
  private static void removeEntry(SecureDirectoryStream<Path> in, Path name) {
    BasicFileAttributes attrs;
    try {
      attrs = in.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    } catch (IOException e) {
      return;
    }
    if (attrs.isDirectory()) {
      // Opened without following a link: a directory swapped for a link since is not entered.
      try (SecureDirectoryStream<Path> sub = in.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
        List<Path> entries = new ArrayList<>();
        for (Path e : sub) {
          entries.add(e.getFileName());
        }
        for (Path e : entries) {
          removeEntry(sub, e);
        }
      } catch (IOException | RuntimeException e) {
        // best effort: what is left stays under the temp directory
      }
      try {
        in.deleteDirectory(name);
      } catch (IOException e) {
        // not empty (written meanwhile) or no longer a directory: left
      }
    } else {
      try {
        in.deleteFile(name);
      } catch (IOException e) {
        // gone, or a directory by now: left
      }
    }
  }

  /** Where no {@link SecureDirectoryStream} is offered: a walk that neither follows links nor leaves {@code root}. */
  private static void walkDelete(Path root) {
    Path realRoot;
    try {
      realRoot = root.toRealPath(LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return;
    }
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.deleteIfExists(root);
      } catch (IOException e) {
        // left
      }
      return;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
          return d.toRealPath().startsWith(realRoot) ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
        }

        @Override
        public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
          Path parent = f.getParent();
          if (parent != null && parent.toRealPath().startsWith(realRoot)) {
            Files.deleteIfExists(f);
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path f, IOException e) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          if (d.toRealPath(LinkOption.NOFOLLOW_LINKS).startsWith(realRoot)) {
            try {
              Files.deleteIfExists(d);
            } catch (IOException notEmpty) {
              // left
            }
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // best effort
    }
  }
}
