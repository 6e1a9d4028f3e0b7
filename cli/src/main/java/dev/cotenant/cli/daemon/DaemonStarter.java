package dev.cotenant.cli.daemon;

import java.io.File;
import java.io.IOException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reaches the daemon of a home, starting one when none runs. Race-free between processes: a
 * starter first tries the socket; when nothing answers it takes the home's start lock (an
 * exclusive file lock, so several shims starting at once queue up), tries again, and only then
 * starts a daemon and waits for its socket to answer before letting go of the lock. The next
 * shim in the queue finds that daemon answering. The daemon is started in a session of its own
 * ({@code setsid}, when present), so a client that kills its shim's process group leaves it
 * running; its output goes to {@code daemon.log} in the home.
 */
public final class DaemonStarter {
  /** How long a start may take before the starter gives up. */
  public static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final CotenantHome home;
  private final List<String> serveArgs;
  private final Map<String, String> env;

  /**
   * @param home the home to reach
   * @param serveArgs arguments after {@code serve} for a daemon it starts ({@code --records-dir},
   *     {@code --set})
   * @param env the environment a daemon it starts inherits
   */
  public DaemonStarter(CotenantHome home, List<String> serveArgs, Map<String, String> env) {
    this.home = home;
    this.serveArgs = List.copyOf(serveArgs);
    this.env = Map.copyOf(env);
  }

  /** Thrown when the daemon cannot be reached or started; the message is one line for people. */
  public static final class UnreachableException extends IOException {
    private static final long serialVersionUID = 1L;

    UnreachableException(String message) {
      super(message);
    }
  }

  /**
   * A connection to the running daemon, or empty when none answers (no socket, or a stale one).
   *
   * @throws UnreachableException when the socket exists but refuses this user (permission denied),
   *     or another user listens on it
   */
  public static Optional<SocketChannel> tryConnect(Path socket) throws UnreachableException {
    if (!Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try {
      SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        ch.connect(UnixDomainSocketAddress.of(socket));
      } catch (IOException e) {
        ch.close();
        throw e;
      }
      try {
        checkPeer(ch, socket);
      } catch (UnreachableException e) {
        ch.close();
        throw e;
      }
      return Optional.of(ch);
    } catch (SocketException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("Connection refused") || m.contains("No such file")) {
        return Optional.empty();
      }
      if (m.contains("Permission denied")) {
        throw new UnreachableException("cannot reach the daemon at " + socket
            + ": permission denied (the socket belongs to another user)");
      }
      throw new UnreachableException("cannot reach the daemon at " + socket + ": " + m);
    } catch (IOException e) {
      throw new UnreachableException("cannot reach the daemon at " + socket + ": " + e.getMessage());
    }
  }

  /**
   * Refuses a listener that is not this user's own before a byte is sent to it: the peer's user
   * ({@code SO_PEERCRED}, the process that listens, whatever the socket file's mode or owner) must
   * be the user running this. A socket another user swapped in would otherwise receive the
   * client's messages. Where the platform gives no peer credentials, the socket file's owner is
   * checked instead.
   */
  static void checkPeer(SocketChannel ch, Path socket) throws UnreachableException {
    String self = System.getProperty("user.name");
    String peer;
    try {
      peer = ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user().getName();
    } catch (IOException | UnsupportedOperationException e) {
      try {
        peer = Files.getOwner(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS).getName();
      } catch (IOException notReadable) {
        throw new UnreachableException("cannot reach the daemon at " + socket + ": its owner cannot be read ("
            + notReadable.getMessage() + ")");
      }
    }
    if (!peer.equals(self)) {
      throw new UnreachableException("refusing the daemon at " + socket + ": it is run by " + peer + ", not by " + self
          + "; a socket of another user's is never spoken to (check who can write to " + socket.getParent() + ")");
    }
  }

  /** A connection to the running daemon, starting one (race-free) when none answers. */
  public SocketChannel connectOrStart() throws IOException, InterruptedException {
    Optional<SocketChannel> ch = tryConnect(home.socket());
    if (ch.isPresent()) {
      return ch.get();
    }
    home.ensure();
    home.checkSocketPathLength();
    try (FileChannel fc = FileChannel.open(home.startLock(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = fc.lock()) {
      ch = tryConnect(home.socket());
      if (ch.isPresent()) {
        return ch.get();
      }
      Process p = spawn();
      return await(p);
    }
  }

  /** Starts a daemon in the background and returns its process (the daemon itself, not a wrapper). */
  public Process spawn() throws IOException {
    List<String> cmd = new ArrayList<>();
    Path setsid = Path.of("/usr/bin/setsid");
    if (Files.isExecutable(setsid)) {
      cmd.add(setsid.toString());
    }
    cmd.addAll(javaCommand());
    cmd.add("serve");
    cmd.addAll(serveArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.environment().put(CotenantHome.ENV, home.dir().toString());
    pb.environment().put(Watchdog.ENV, newDaemonId());
    pb.directory(home.dir().toFile());
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(home.log().toFile()));
    pb.redirectErrorStream(true);
    return pb.start();
  }

  /** Waits until the daemon {@code p} answers on the socket, or explains why it will not. */
  public SocketChannel await(Process p) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      Optional<SocketChannel> ch = tryConnect(home.socket());
      if (ch.isPresent()) {
        return ch.get();
      }
      if (!p.isAlive()) {
        // Another daemon may have won the home meanwhile (a `cotenant serve` run by hand).
        ch = tryConnect(home.socket());
        if (ch.isPresent()) {
          return ch.get();
        }
        throw new UnreachableException("the daemon it started exited with status " + p.exitValue()
            + lastLogLine().map(l -> ": " + l).orElse("") + " (see " + home.log() + ")");
      }
      if (System.nanoTime() > deadline) {
        throw new UnreachableException("the daemon it started (pid " + p.pid() + ") did not answer on "
            + home.socket() + " within " + START_TIMEOUT.toSeconds() + " s (see " + home.log() + ")");
      }
      Thread.sleep(20);
    }
  }

  private Optional<String> lastLogLine() {
    try {
      List<String> lines = Files.readAllLines(home.log(), StandardCharsets.UTF_8);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          return Optional.of(lines.get(i).strip());
        }
      }
    } catch (IOException e) {
      // No log.
    }
    return Optional.empty();
  }

  /**
   * The JVM options of the daemon, whether a shim starts it or {@code cotenant serve} runs it as
   * its child, chosen for a long-lived process that mostly waits and holds a few dozen sessions;
   * each was measured with {@code DaemonMemory} (docs/performance.md):
   *
   * <ul>
   *   <li>{@code -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1}: the serial
   *       collector and the first compiler tier only, on one compiler thread: less memory and fewer
   *       threads than the defaults, and a quicker start;
   *   <li>{@code -Xmn4m}: a young generation of 4 MiB. Without a bound it is sized from the
   *       machine's memory (126 MiB on a 24 GiB machine), and every page of it is touched before
   *       the first collection, so it stays resident; a daemon allocates little per message, and a
   *       young collection of it takes well under a millisecond;
   *   <li>{@code -XX:Tier3InvocationThreshold=2000 -XX:Tier3MinInvocationThreshold=1000
   *       -XX:Tier3CompileThreshold=20000 -XX:Tier3BackEdgeThreshold=600000}: a method is compiled
   *       after ten times the calls it would be by default, so what runs once at start (reading
   *       the records, the configuration, the command line) stays interpreted and the code cache
   *       holds what serves sessions;
   *   <li>{@code -Xms16m -XX:-ShrinkHeapInSteps -XX:MinHeapFreeRatio=20 -XX:MaxHeapFreeRatio=40}:
   *       a heap that starts small and, at a full collection, shrinks at once to what is live and
   *       at most 40 % free. The initial heap would otherwise be 1/64 of the machine's memory, and
   *       the heap never shrinks below it: a few messages of 8 MiB left a daemon holding 370 MiB
   *       of old generation. {@link HeapTrim} asks for that collection once such a burst is over;
   *   <li>{@code -Dorg.eclipse.jetty.util.referencesPerCacheLine=16}: what Jetty would otherwise
   *       find out through JMX, whose platform server it starts for that alone (about 280 classes
   *       and 3 MiB);
   *   <li>{@code -Djdk.nio.maxCachedBufferSize=262144}: a thread that wrote or read one large
   *       message over a socket would otherwise keep a native buffer of that size for its life;
   *   <li>{@code --add-opens=java.base/sun.nio.ch=ALL-UNNAMED}: so the daemon can read a socket
   *       peer's pid ({@code SO_PEERCRED}) and refuse a peer in another namespace ({@link PeerCheck}).
   * </ul>
   */
  public static final List<String> DAEMON_JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
      "-XX:CICompilerCount=1", "-Xmn4m", "-XX:Tier3InvocationThreshold=2000", "-XX:Tier3MinInvocationThreshold=1000",
      "-XX:Tier3CompileThreshold=20000", "-XX:Tier3BackEdgeThreshold=600000", "-Xms16m", "-XX:-ShrinkHeapInSteps",
      "-XX:MinHeapFreeRatio=20",
      "-XX:MaxHeapFreeRatio=40", "-Dorg.eclipse.jetty.util.referencesPerCacheLine=16",
      "-Djdk.nio.maxCachedBufferSize=262144", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");

  /**
   * The command that runs this same cotenant in a new JVM: this JVM's {@code java}, this JVM's
   * class path made absolute, and {@code dev.cotenant.cli.Main}.
   */
  public static List<String> javaCommand() {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(DAEMON_JVM_OPTIONS);
    cmd.add("-cp");
    cmd.add(absoluteClassPath());
    cmd.add("dev.cotenant.cli.Main");
    return cmd;
  }

  static String absoluteClassPath() {
    List<String> parts = new ArrayList<>();
    for (String p : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!p.isEmpty()) {
        parts.add(Path.of(p).toAbsolutePath().normalize().toString());
      }
    }
    return String.join(File.pathSeparator, parts);
  }

  /** A fresh random id for {@value Watchdog#ENV}. */
  public static String newDaemonId() {
    byte[] b = new byte[16];
    new java.security.SecureRandom().nextBytes(b);
    return java.util.HexFormat.of().formatHex(b);
  }

  /** The home. */
  public CotenantHome home() {
    return home;
  }
}
