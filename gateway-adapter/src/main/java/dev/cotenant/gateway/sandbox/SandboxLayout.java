package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.ServerDescription;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * How one server is started in the sandbox: a private directory for it (its {@code HOME},
 * {@code TMPDIR} and the private copies), and the bubblewrap command line that shows it the
 * operator's files read-only and its own copies writable, at the paths its configuration names.
 *
 * <p>Paths the configuration names — the command (when it is a path), every argument (and the
 * value after {@code =} in {@code --flag=VALUE}), every env value, the working directory; a
 * leading {@code ~/} means the home directory — are treated by what they are:
 *
 * <ul>
 *   <li>a <b>directory</b> is copied whole into the private directory and the copy is mounted at
 *       its path, when it holds at most {@value #MAX_COPY_ENTRIES} entries and
 *       {@value #MAX_COPY_BYTES} bytes; a larger one stays read-only, and the server cannot
 *       change it;
 *   <li>a <b>file</b>, or a path that does not exist yet in a directory that does, gets a
 *       private <i>shadow</i> of its directory: the named files copied, every other entry mounted
 *       read-only at its own path, so the server may write,
 *       replace, create or delete the named file and only its copy changes;
 *   <li>the <b>command</b> is never copied;
 *   <li>the sandbox's own {@code /tmp} and {@code /var/tmp} are private and writable, and show
 *       every entry the host's hold read-only at its path (a class path, a script or a command
 *       there keeps working), up to {@value #MAX_SHADOW_ENTRIES} entries;
 *   <li>paths under the system directories ({@code /usr}, {@code /etc}, ...) are left as the
 *       read-only root shows them.
 * </ul>
 *
 * <p>Not thread-safe; one instance prepares launches one at a time for {@link SandboxedSessions},
 * which serialises nothing else.
 */
final class SandboxLayout {
  /** How a private directory's name starts; the pid of the process that made it follows. */
  static final String PREFIX = "cotenant-sandbox-";

  /** The most entries a named directory may hold to be copied. */
  static final int MAX_COPY_ENTRIES = 10_000;

  /** The most bytes a named directory may hold to be copied. */
  static final long MAX_COPY_BYTES = 64L * 1024 * 1024;

  /** The most entries a directory may hold to be shadowed. */
  static final int MAX_SHADOW_ENTRIES = 4_096;

  /** Directories the read-only root shows as they are: a configuration naming one changes nothing. */
  private static final List<Path> SYSTEM = Stream.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
      "/etc", "/proc", "/sys", "/dev", "/run", "/boot", "/snap", "/nix").map(Path::of).toList();

  /** Env names whose values are never treated as paths. */
  private static final Set<String> NOT_PATHS = Set.of("PATH", "HOME", "TMPDIR", "PWD", "OLDPWD", "SHELL");

  private final String bwrap;
  private final boolean network;
  private final Path temp;
  private final Path home;
  private final HostBoundary boundary;

  /** A layout that hides what {@link HostBoundary#of} finds for {@code home} and this process's environment. */
  SandboxLayout(String bwrap, boolean network, Path temp, Path home) {
    this(bwrap, network, temp, home, HostBoundary.of(System.getenv(), home, Optional.empty()));
  }

  SandboxLayout(String bwrap, boolean network, Path temp, Path home, HostBoundary boundary) {
    this.bwrap = Objects.requireNonNull(bwrap, "bwrap");
    this.network = network;
    this.temp = temp.toAbsolutePath().normalize();
    this.home = home.toAbsolutePath().normalize();
    this.boundary = Objects.requireNonNull(boundary, "boundary");
  }

  /**
   * A launch prepared: the description that starts {@code server} in the sandbox, the private
   * directory to remove when the server is gone, and what was done with each named path.
   */
  record Launch(ServerDescription server, Path root, List<String> notes) {}

  /**
   * Prepares {@code server}'s launch: creates its private directory and copies, and returns the
   * bubblewrap command line around its own.
   *
   * @param live directories bound writable as they are (the probe's own scratch directories)
   * @throws IOException when the private directory or a copy cannot be made; whatever was made is
   *     removed first
   */
  Launch prepare(ServerDescription server, List<Path> live) throws IOException {
    sweep(temp);
    Path root = Files.createTempDirectory(temp, PREFIX + ProcessHandle.current().pid() + "-");
    try {
      return prepareIn(server, live, root);
    } catch (IOException | RuntimeException e) {
      delete(root);
      throw e;
    }
  }

  private Launch prepareIn(ServerDescription server, List<Path> live, Path root) throws IOException {
    Path privateHome = Files.createDirectory(root.resolve("home"), PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    Path privateTmp = Files.createDirectory(root.resolve("tmp"));
    Path lock = Files.createFile(root.resolve(Leftovers.LOCK));
    List<String> notes = new ArrayList<>();
    Set<Path> liveDirs = new LinkedHashSet<>();
    for (Path p : live) {
      liveDirs.add(p.toAbsolutePath().normalize());
    }

    // Every path the configuration names, outermost first.
    Optional<Path> cwd = server.cwd().flatMap(c -> path(c, Optional.empty()));
    Set<Path> named = new java.util.TreeSet<>(Comparator.comparingInt(Path::getNameCount).thenComparing(Path::toString));
    for (String arg : server.args()) {
      valueOf(arg).flatMap(v -> path(v, cwd)).ifPresent(named::add);
    }
    server.env().forEach((k, v) -> {
      if (!NOT_PATHS.contains(k)) {
        path(v, cwd).ifPresent(named::add);
      }
    });
    Optional.ofNullable(server.env().get("HOME")).flatMap(v -> path(v, cwd)).ifPresent(named::add);
    cwd.ifPresent(named::add);

    Map<Path, Path> copies = new LinkedHashMap<>();
    Set<Path> readOnly = new LinkedHashSet<>();
    Map<Path, Path> fileCopies = new LinkedHashMap<>();
    Set<Path> siblings = new LinkedHashSet<>();
    Map<Path, Set<Path>> shadows = new TreeMap<>(Comparator.comparingInt(Path::getNameCount).thenComparing(Path::toString));
    List<Path> neverShadowed = List.of(Path.of("/tmp"), Path.of("/var/tmp"), temp);
    int n = 0;
    for (Path p : named) {
      if (system(p) || p.getNameCount() == 0 || p.startsWith(root) || under(p, liveDirs) || under(p, copies.keySet())) {
        continue;
      }
      if (boundary.isHidden(p)) {
        notes.add(p + ": hidden (the sandbox shows an empty directory there)");
        continue;
      }
      if (Files.isDirectory(p)) {
        Optional<String> tooBig = tooBigToCopy(p);
        if (tooBig.isEmpty()) {
          Path copy = root.resolve("copy-" + (++n));
          copyTree(p, copy);
          copies.put(p, copy);
          notes.add(p + ": a private copy");
        } else {
          readOnly.add(p);
          notes.add(p + ": read-only (" + tooBig.get() + ")");
        }
        continue;
      }
      Path dir = p.getParent();
      if (dir == null || !Files.isDirectory(dir) || system(dir) || dir.getNameCount() == 0 || under(dir, copies.keySet())
          || (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(p))) {
        continue;
      }
      if (neverShadowed.contains(dir)) {
        // The sandbox's own /tmp replaces these: a file named there is copied alone.
        if (Files.isRegularFile(p)) {
          Path copy = root.resolve("file-" + (++n));
          Files.copy(p, copy, StandardCopyOption.COPY_ATTRIBUTES);
          fileCopies.put(p, copy);
          notes.add(p + ": a private copy (it cannot be replaced or deleted, only written)");
        }
        continue;
      }
      shadows.computeIfAbsent(dir, d -> new LinkedHashSet<>()).add(p);
    }

    List<String> mounts = new ArrayList<>();
    for (Map.Entry<Path, Set<Path>> e : shadows.entrySet()) {
      Path dir = e.getKey();
      if (under(dir, shadows.keySet().stream().filter(d -> !d.equals(dir)).toList())) {
        // A named path inside another shadowed directory is reached through its symbolic link,
        // read-only: its own directory is not shadowed again.
        e.getValue().forEach(p -> notes.add(p + ": read-only (inside a directory shadowed for another named path)"));
        continue;
      }
      Path shadow = root.resolve("shadow-" + (++n));
      Optional<List<Path>> kept = shadow(dir, e.getValue(), shadow);
      if (kept.isPresent()) {
        copies.put(dir, shadow);
        siblings.addAll(kept.get());
        e.getValue().forEach(p -> notes.add(p + (Files.exists(p) ? ": a private copy" : ": private, created in the sandbox")));
      } else {
        for (Path p : e.getValue()) {
          if (Files.isRegularFile(p)) {
            Path copy = root.resolve("file-" + (++n));
            Files.copy(p, copy, StandardCopyOption.COPY_ATTRIBUTES);
            fileCopies.put(p, copy);
            notes.add(p + ": a private copy (it cannot be replaced or deleted, only written: " + dir + " holds more than "
                + MAX_SHADOW_ENTRIES + " entries)");
          } else {
            notes.add(p + ": cannot be created (" + dir + " holds more than " + MAX_SHADOW_ENTRIES + " entries)");
          }
        }
      }
    }
    // The command, when it lies where the sandbox's own /tmp hides it.
    Path tmp = Path.of("/tmp");
    Optional<Path> program = server.command().contains("/") ? path(server.command(), cwd) : Optional.empty();
    if (program.isPresent() && program.get().startsWith(tmp) && program.get().getParent() != null
        && !under(program.get(), copies.keySet())) {
      readOnly.add(program.get().getParent());
    }

    List<String> args = new ArrayList<>(Sandbox.NAMESPACES);
    if (!network) {
      args.add("--unshare-net");
    }
    args.addAll(List.of("--new-session", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--tmpfs", "/tmp"));
    if (Files.isDirectory(Path.of("/var/tmp"))) {
      args.addAll(List.of("--tmpfs", "/var/tmp"));
    }
    // Mounts from the outermost in, so that a deeper one lands inside the one it belongs to.
    Map<Path, String[]> ordered = new TreeMap<>(Comparator.comparingInt(Path::getNameCount).thenComparing(Path::toString));
    // The private /tmp (and /var/tmp) still shows what the host's holds, read-only: a command, a
    // class path or a script there keeps working. A mount below replaces one of these.
    for (Path t : List.of(tmp, Path.of("/var/tmp"))) {
      List<Path> entries = entries(t);
      if (entries.size() > MAX_SHADOW_ENTRIES) {
        notes.add(t + ": private and empty (the host's holds more than " + MAX_SHADOW_ENTRIES + " entries)");
        continue;
      }
      for (Path e : entries) {
        if (Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS) || Files.isRegularFile(e, LinkOption.NOFOLLOW_LINKS)) {
          // -try: an entry removed before the sandbox starts (another process's) is left out.
          ordered.put(e, new String[] {"--ro-bind-try", e.toString(), e.toString()});
        }
      }
    }
    for (Path p : readOnly) {
      if (p.startsWith(tmp) || p.startsWith("/var/tmp")) {
        ordered.put(p, new String[] {"--ro-bind", p.toString(), p.toString()});
      }
    }
    copies.forEach((original, copy) -> ordered.put(original, new String[] {"--bind", copy.toString(), original.toString()}));
    fileCopies.forEach((original, copy) -> ordered.put(original, new String[] {"--bind", copy.toString(), original.toString()}));
    siblings.forEach(p -> ordered.put(p, new String[] {"--ro-bind-try", p.toString(), p.toString()}));
    // The private directory is read-only but for its HOME and TMPDIR: its lock file cannot be
    // replaced, so the sweep always sees the lock bubblewrap holds.
    ordered.put(root, new String[] {"--ro-bind", root.toString(), root.toString()});
    ordered.put(privateHome, new String[] {"--bind", privateHome.toString(), privateHome.toString()});
    ordered.put(privateTmp, new String[] {"--bind", privateTmp.toString(), privateTmp.toString()});
    for (Path l : liveDirs) {
      ordered.put(l, new String[] {"--bind", l.toString(), l.toString()});
    }
    ordered.values().forEach(m -> mounts.addAll(List.of(m)));
    args.addAll(mounts);
    // Last, over everything above: what of the host the server must not reach.
    args.addAll(boundary.hideDirectories());
    args.addAll(boundary.maskSockets(p -> visible(p, ordered, copies.keySet(), fileCopies.keySet()), ordered.keySet()));
    args.addAll(boundary.unsetEnvironment(server.env()));
    // bubblewrap holds these locks for as long as anything runs in the sandbox (see Leftovers).
    args.addAll(List.of("--lock-file", lock.toString()));
    for (Path l : liveDirs) {
      for (Path a = l.getParent(); a != null && a.startsWith(temp) && !a.equals(temp); a = a.getParent()) {
        if (Files.isRegularFile(a.resolve(Leftovers.LOCK), LinkOption.NOFOLLOW_LINKS)) {
          args.addAll(List.of("--lock-file", a.resolve(Leftovers.LOCK).toString()));
        }
      }
    }
    cwd.ifPresent(c -> args.addAll(List.of("--chdir", c.toString())));
    args.add("--");
    Map<String, String> env = new TreeMap<>(server.env());
    NpxLaunch.Outcome npx = NpxLaunch.resolve(server.command(), server.args(), server.env(),
        cwd.orElse(Path.of("").toAbsolutePath()));
    if (npx.resolved().isPresent()) {
      NpxLaunch.Resolved r = npx.resolved().get();
      args.add(r.command());
      args.addAll(r.args());
      String path = env.getOrDefault("PATH", Objects.requireNonNullElse(System.getenv("PATH"), "/usr/local/bin:/usr/bin:/bin"));
      env.put("PATH", r.binDirectory() + ":" + path);
      notes.add(server.command() + " " + String.join(" ", server.args()) + ": runs " + r.command() + " from " + r.from()
          + " (npx would ask the registry first)");
    } else if (npx.why().isPresent() && !network) {
      throw new Unlaunchable("npx cannot start " + server.name() + " in the sandbox: " + npx.why().get());
    } else {
      args.add(server.command());
      args.addAll(server.args());
    }

    if (!server.env().containsKey("HOME")) {
      env.put("HOME", privateHome.toString());
    }
    env.put("TMPDIR", privateTmp.toString());
    ServerDescription wrapped = new ServerDescription(server.name(), server.transport(), bwrap, args, server.cwd(), env,
        server.url(), server.enabled());
    return new Launch(wrapped, root, List.copyOf(notes));
  }

  /** A launch the sandbox cannot start; its message says why and what to do. */
  static final class Unlaunchable extends IOException {
    private static final long serialVersionUID = 1L;

    Unlaunchable(String message) {
      super(message);
    }
  }

  /** The path part of an argument: the value after {@code =} in {@code --flag=VALUE}, else itself. */
  private static Optional<String> valueOf(String arg) {
    if (arg.startsWith("-")) {
      int eq = arg.indexOf('=');
      return eq < 0 ? Optional.empty() : Optional.of(arg.substring(eq + 1));
    }
    return Optional.of(arg);
  }

  /** {@code value} as an absolute, normalised path, when it looks like one. */
  private Optional<Path> path(String value, Optional<Path> cwd) {
    String v = value.strip();
    if (v.isEmpty() || v.indexOf('\0') >= 0 || v.contains("://")) {
      return Optional.empty();
    }
    try {
      Path p;
      if (v.equals("~")) {
        p = home;
      } else if (v.startsWith("~/")) {
        p = home.resolve(v.substring(2));
      } else if (v.startsWith("/")) {
        p = Path.of(v);
      } else if (cwd.isPresent() && (v.startsWith("./") || v.startsWith("../") || Files.exists(cwd.get().resolve(v)))) {
        p = cwd.get().resolve(v);
      } else {
        return Optional.empty();
      }
      return Optional.of(p.toAbsolutePath().normalize());
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  private static boolean system(Path p) {
    return SYSTEM.stream().anyMatch(p::startsWith);
  }

  private static boolean under(Path p, java.util.Collection<Path> dirs) {
    return dirs.stream().anyMatch(p::startsWith);
  }

  /** Empty when {@code dir} is small enough to copy, else why not. */
  private static Optional<String> tooBigToCopy(Path dir) throws IOException {
    long[] seen = new long[2];
    String[] why = new String[1];
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
        return count(attrs);
      }

      @Override
      public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
        return count(attrs);
      }

      @Override
      public FileVisitResult visitFileFailed(Path f, IOException e) {
        why[0] = "it cannot be read whole: " + f;
        return FileVisitResult.TERMINATE;
      }

      private FileVisitResult count(BasicFileAttributes attrs) {
        seen[0]++;
        seen[1] += attrs.isRegularFile() ? attrs.size() : 0;
        if (seen[0] > MAX_COPY_ENTRIES) {
          why[0] = "more than " + MAX_COPY_ENTRIES + " entries";
        } else if (seen[1] > MAX_COPY_BYTES) {
          why[0] = "more than " + MAX_COPY_BYTES / (1024 * 1024) + " MiB";
        }
        return why[0] == null ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
      }
    });
    return Optional.ofNullable(why[0]);
  }

  /** Copies {@code from} to {@code to}, keeping permissions; symbolic links are copied as links. */
  private static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
        Path target = to.resolve(from.relativize(d).toString());
        Files.copy(d, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
        Files.copy(f, to.resolve(from.relativize(f).toString()), StandardCopyOption.COPY_ATTRIBUTES,
            LinkOption.NOFOLLOW_LINKS);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Makes {@code shadow}: {@code named} files copied, a symbolic link copied as the link, and an
   * empty placeholder for every other entry of {@code dir}, each of which the sandbox mounts
   * read-only at its own path. A sibling is thus seen where it is, under its own real path (a
   * script's imports resolve as outside), and cannot be changed; the named files can be written,
   * replaced and deleted, and new files created. Returns the entries to mount, or empty, making
   * nothing, when {@code dir} holds more than {@value #MAX_SHADOW_ENTRIES} entries.
   */
  private static Optional<List<Path>> shadow(Path dir, Set<Path> named, Path shadow) throws IOException {
    List<Path> entries;
    try (Stream<Path> list = Files.list(dir)) {
      entries = list.limit(MAX_SHADOW_ENTRIES + 1L).toList();
    }
    if (entries.size() > MAX_SHADOW_ENTRIES) {
      return Optional.empty();
    }
    Files.createDirectory(shadow);
    List<Path> mounted = new ArrayList<>();
    for (Path entry : entries) {
      Path target = shadow.resolve(entry.getFileName().toString());
      Path original = entry.toAbsolutePath().normalize();
      if (named.contains(original) && Files.isRegularFile(entry)) {
        Files.copy(entry, target, StandardCopyOption.COPY_ATTRIBUTES);
      } else if (Files.isSymbolicLink(entry)) {
        Files.copy(entry, target, LinkOption.NOFOLLOW_LINKS);
      } else if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
        Files.createDirectory(target);
        mounted.add(original);
      } else if (Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
        Files.createFile(target);
        mounted.add(original);
      }
    }
    return Optional.of(mounted);
  }

  /**
   * Removes the private directories that processes which are gone left in {@code temp}: a JVM
   * killed while a server ran in the sandbox could not remove its own. Each directory's name
   * carries the pid of the process that made it; one whose process is not alive, and whose lock
   * no sandbox holds, is removed ({@link Leftovers#sweep}).
   */
  static void sweep(Path temp) {
    Leftovers.sweep(temp, PREFIX);
  }

  /** The entries of {@code dir} (at most one more than {@value #MAX_SHADOW_ENTRIES}); none when it cannot be read. */
  private static List<Path> entries(Path dir) {
    try (Stream<Path> list = Files.list(dir)) {
      return list.limit(MAX_SHADOW_ENTRIES + 1L).map(p -> p.toAbsolutePath().normalize()).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Removes {@code dir} and everything in it, as far as it can; never follows a link ({@link Leftovers#delete}). */
  static void delete(Path dir) {
    Leftovers.delete(dir);
  }

  /**
   * Whether the host's {@code p} is seen in the sandbox: not when the deepest mount holding it is
   * a private copy, nor under the private {@code /tmp} and {@code /var/tmp} unless a host entry
   * mounted there holds it.
   */
  private static boolean visible(Path p, Map<Path, String[]> mounts, Set<Path> copies, Set<Path> fileCopies) {
    Optional<Path> deepest = mounts.keySet().stream().filter(p::startsWith).max(Comparator.comparingInt(Path::getNameCount));
    if (deepest.isPresent()) {
      return !copies.contains(deepest.get()) && !fileCopies.contains(deepest.get());
    }
    return !p.startsWith("/tmp") && !p.startsWith("/var/tmp");
  }
}
