package dev.cotenant.gateway.sandbox;

import dev.cotenant.gateway.records.RecordsDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What of the host a sandboxed server must not reach although the root is mounted read-only: a
 * read-only mount does not stop {@code connect()} on a Unix socket, and the environment a server
 * inherits names agents and holds credentials.
 *
 * <ul>
 *   <li><b>Hidden directories</b>, each replaced by an empty tmpfs: the Cotenant home (the
 *       daemon's {@code cotenant.sock}, {@code api.sock}, {@code api-token}, its records), the
 *       records directory wherever it is configured, the user's runtime directory
 *       ({@code $XDG_RUNTIME_DIR}, {@code /run/user/UID}: agents, the session bus).
 *   <li><b>Every other path-named socket</b> of the host: those {@code /proc/net/unix} lists and
 *       those found under {@code /run} and {@code /var/run}. A directory that holds nothing but
 *       sockets is replaced by an empty tmpfs; any other socket gets {@code /dev/null} mounted
 *       over it, so there is nothing to connect to. Abstract sockets belong to a network
 *       namespace, and the sandbox has its own.
 *   <li><b>Environment entries</b> that point at sockets or hold credentials
 *       ({@link #sensitive}) are removed, unless the server's configuration names them.
 * </ul>
 *
 * <p>Immutable; the sockets are read again for every launch.
 */
final class HostBoundary {
  /** The most entries looked at under {@code /run} for sockets. */
  static final int MAX_RUN_ENTRIES = 20_000;

  /** Names removed whatever their value: agents, buses, displays, credential files. */
  private static final Set<String> NAMES = Set.of("SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
      "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "DOCKER_HOST", "DISPLAY",
      "WAYLAND_DISPLAY", "XAUTHORITY", "KUBECONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "NETRC");

  /** How a removed name may start. */
  private static final List<String> PREFIXES = List.of("AWS_", "AZURE_", "GCP_", "GOOGLE_CLOUD_");

  /** How a removed name may end. */
  private static final List<String> SUFFIXES = List.of("_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD",
      "_CREDENTIALS", "_SOCK", "_SOCKET");

  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  private final List<Path> hidden;
  private final Map<String, String> inherited;

  /**
   * @param hidden directories replaced by an empty tmpfs, when they exist
   * @param inherited the environment a server inherits (this process's)
   */
  HostBoundary(Collection<Path> hidden, Map<String, String> inherited) {
    this.hidden = hidden.stream().map(p -> p.toAbsolutePath().normalize()).distinct().toList();
    this.inherited = Map.copyOf(inherited);
  }

  /**
   * The boundary of this machine: the Cotenant home ({@code $COTENANT_HOME}, else
   * {@code userHome/.cotenant}), {@code records}, {@code $XDG_RUNTIME_DIR} and
   * {@code /run/user/UID}; {@code env} is what servers inherit.
   */
  static HostBoundary of(Map<String, String> env, Path userHome, Optional<Path> records) {
    List<Path> hidden = new ArrayList<>();
    try {
      hidden.add(RecordsDirectory.resolve(Optional.empty(), env, userHome).getParent());
    } catch (IllegalArgumentException e) {
      // A relative COTENANT_HOME names no home any command would use.
    }
    records.ifPresent(hidden::add);
    Optional.ofNullable(env.get("XDG_RUNTIME_DIR")).filter(v -> v.startsWith("/")).flatMap(HostBoundary::path)
        .ifPresent(hidden::add);
    uid().ifPresent(uid -> hidden.add(Path.of("/run/user", String.valueOf(uid))));
    return new HostBoundary(hidden, env);
  }

  /** The hidden directories. */
  List<Path> hidden() {
    return hidden;
  }

  /** True when {@code p} is a hidden directory or lies in one. */
  boolean isHidden(Path p) {
    return hidden.stream().anyMatch(p::startsWith);
  }

  /**
   * The bubblewrap options that hide the hidden directories that exist as directories; the
   * Cotenant home is made first when it is missing (0700, as the daemon makes it), so that a home
   * a daemon makes later is hidden too.
   */
  List<String> hideDirectories() {
    Path home = hidden.isEmpty() ? null : hidden.get(0);
    if (home != null && !Files.exists(home, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectories(home.getParent());
        Files.createDirectory(home, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
      } catch (IOException | UnsupportedOperationException e) {
        // Another process made it, or it cannot be made: then there is nothing to hide there.
      }
    }
    List<String> args = new ArrayList<>();
    for (Path d : hidden) {
      if (Files.isDirectory(d) && d.getNameCount() > 0) {
        // The directory a symbolic link leads to is hidden at its own path too.
        for (Path p : new LinkedHashSet<>(List.of(d, real(d)))) {
          args.addAll(List.of("--tmpfs", p.toString()));
        }
      }
    }
    return args;
  }

  /**
   * The bubblewrap options that leave nothing to connect to at the host's path-named sockets the
   * sandbox would show: {@code visible} says whether a path is seen in the sandbox at all (a socket
   * under a hidden directory, or in the sandbox's private {@code /tmp}, is not), and a socket its
   * user could not reach anyway is left alone ({@link #reachable}: bubblewrap could not mount over
   * it either). A directory that
   * holds only sockets, and no mount destination ({@code mounted}), is covered by an empty tmpfs;
   * every other socket by {@code /dev/null}. To be placed after every other mount.
   */
  List<String> maskSockets(Predicate<Path> visible, Collection<Path> mounted) {
    Set<Path> sockets = new TreeSet<>();
    Self self = Self.read();
    for (Path s : hostSockets()) {
      if (!isHidden(s) && visible.test(s) && isSocket(s) && reachable(s, self)) {
        sockets.add(s);
      }
    }
    List<String> args = new ArrayList<>();
    Set<Path> covered = new LinkedHashSet<>();
    for (Path s : sockets) {
      Path dir = s.getParent();
      if (dir == null || covered.contains(dir)) {
        continue;
      }
      if (dir.getNameCount() > 1 && mounted.stream().noneMatch(m -> m.startsWith(dir)) && onlySockets(dir)) {
        covered.add(dir);
        args.addAll(List.of("--tmpfs", dir.toString()));
      } else {
        args.addAll(List.of("--ro-bind", "/dev/null", s.toString()));
      }
    }
    return args;
  }

  /**
   * The bubblewrap options that remove, from what the server inherits, each entry
   * {@linkplain #sensitive sensitive} that {@code named} (the server's configured env) does not set.
   */
  List<String> unsetEnvironment(Map<String, String> named) {
    List<String> args = new ArrayList<>();
    new TreeSet<>(inherited.keySet()).forEach(k -> {
      if (!named.containsKey(k) && sensitive(k, inherited.get(k))) {
        args.addAll(List.of("--unsetenv", k));
      }
    });
    return args;
  }

  /**
   * True when an environment entry points at a socket or holds a credential: an agent's or bus's
   * name, a name starting {@code AWS_}, {@code AZURE_}, ... or ending {@code _TOKEN}, {@code _KEY},
   * {@code _SECRET}, {@code _PASSWORD}, {@code _SOCK}, ..., or a value naming an existing socket
   * (alone or after {@code unix:}, {@code unix:path=}).
   */
  static boolean sensitive(String name, String value) {
    String n = name.toUpperCase(Locale.ROOT);
    if (NAMES.contains(n) || PREFIXES.stream().anyMatch(n::startsWith) || SUFFIXES.stream().anyMatch(n::endsWith)
        || n.contains("_SOCK")) {
      return true;
    }
    String v = value.strip();
    for (String prefix : List.of("unix:path=", "unix://", "unix:")) {
      if (v.startsWith(prefix)) {
        v = v.substring(prefix.length());
        int comma = v.indexOf(',');
        v = comma < 0 ? v : v.substring(0, comma);
        break;
      }
    }
    return v.startsWith("/") && path(v).filter(HostBoundary::isSocket).isPresent();
  }

  /** The path-named sockets of the host: {@code /proc/net/unix}'s, and those under {@code /run}. */
  static Set<Path> hostSockets() {
    Set<Path> out = new TreeSet<>();
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/net/unix"), StandardCharsets.UTF_8);
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        // Num RefCount Protocol Flags Type St Inode Path: the path is what follows the seventh field.
        String[] f = line.strip().split("\\s+", 8);
        if (f.length == 8 && f[7].startsWith("/")) {
          path(f[7]).ifPresent(out::add);
        }
      }
    } catch (IOException e) {
      // No /proc/net/unix: only what the walk below finds.
    }
    for (Path run : List.of(Path.of("/run"), Path.of("/var/run"))) {
      if (Files.isDirectory(run, LinkOption.NOFOLLOW_LINKS)) {
        out.addAll(socketsUnder(run));
      }
    }
    return out;
  }

  /** The sockets under {@code dir}, not following links, looking at most at {@value #MAX_RUN_ENTRIES} entries. */
  static List<Path> socketsUnder(Path dir) {
    List<Path> found = new ArrayList<>();
    int[] seen = {0};
    try {
      Files.walkFileTree(dir, EnumSet.noneOf(FileVisitOption.class), 8, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
          return ++seen[0] > MAX_RUN_ENTRIES ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
          if (attrs.isOther() && isSocket(f)) {
            found.add(f.toAbsolutePath().normalize());
          }
          return ++seen[0] > MAX_RUN_ENTRIES ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path f, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // What was found so far.
    }
    return found;
  }

  /**
   * Whether a process of this user with no privilege over other users' files (as every process in
   * the sandbox's user namespace is, root included) could connect to the socket {@code s}: each
   * directory above it searchable by it, and the socket writable by it, by owner, group (this
   * process's groups, supplementary ones included) or other bits. When a mode cannot be read the
   * answer is yes, so the socket is masked.
   */
  static boolean reachable(Path s) {
    return reachable(s, Self.read());
  }

  /** As {@link #reachable(Path)}, for the user and groups {@code self} read once. */
  private static boolean reachable(Path s, @org.jspecify.annotations.Nullable Self self) {
    if (self == null) {
      return true;
    }
    int uid = self.uid();
    Set<Integer> groups = self.groups();
    try {
      for (Path d = s.toAbsolutePath().getParent(); d != null; d = d.getParent()) {
        if (!permits(d, uid, groups, 1, true)) {
          return false;
        }
      }
      return permits(s, uid, groups, 2, false);
    } catch (IOException | RuntimeException e) {
      return true;
    }
  }

  private static boolean permits(Path p, int uid, Set<Integer> groups, int bit, boolean follow) throws IOException {
    LinkOption[] how = follow ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
    int mode = (Integer) Files.getAttribute(p, "unix:mode", how);
    if ((Integer) Files.getAttribute(p, "unix:uid", how) == uid) {
      return (mode >> 6 & bit) != 0;
    }
    if (groups.contains((Integer) Files.getAttribute(p, "unix:gid", how))) {
      return (mode >> 3 & bit) != 0;
    }
    return (mode & bit) != 0;
  }

  /** This process's user, and its group and supplementary groups ({@code /proc/self/status}). */
  private record Self(int uid, Set<Integer> groups) {
    /** Read once per masking; null when they cannot be read (every socket is then masked). */
    static @org.jspecify.annotations.Nullable Self read() {
      try {
        Set<Integer> out = new java.util.HashSet<>();
        out.add((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:gid"));
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (line.startsWith("Groups:")) {
            for (String g : line.substring("Groups:".length()).trim().split("\\s+")) {
              if (!g.isEmpty()) {
                out.add(Integer.parseInt(g));
              }
            }
          }
        }
        return new Self((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"), Set.copyOf(out));
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }
  }

  /** True when {@code p} is a socket (not following a link). */
  static boolean isSocket(Path p) {
    try {
      Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return mode instanceof Integer m && (m & S_IFMT) == S_IFSOCK;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean onlySockets(Path dir) {
    try (Stream<Path> list = Files.list(dir)) {
      return list.limit(1_000).allMatch(HostBoundary::isSocket);
    } catch (IOException e) {
      return false;
    }
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  private static Optional<Path> path(String v) {
    try {
      return Optional.of(Path.of(v).toAbsolutePath().normalize());
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  /** This process's user id, from {@code /proc/self}. */
  static Optional<Integer> uid() {
    try {
      return Optional.of((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
      return Optional.empty();
    }
  }
}
