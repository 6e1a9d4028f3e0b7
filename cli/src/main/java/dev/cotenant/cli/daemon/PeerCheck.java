package dev.cotenant.cli.daemon;

import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may talk to the daemon's sockets ({@code cotenant.sock}, {@code api.sock}): a peer of the
 * daemon's own user ({@code SO_PEERCRED}), in the daemon's own user and mount namespaces. A
 * process in a sandbox (bubblewrap's user and mount namespaces: the probe's servers) is refused
 * even where it could reach the socket, and so is a peer whose {@code /proc/PID/ns} cannot be
 * read. See {@code docs/daemon.md}, "Who may connect".
 *
 * <p>The peer's pid is the one {@code SO_PEERCRED} gives, which Java's API leaves out: it is read
 * with {@code getsockopt} through {@code sun.nio.ch}, which the daemon's JVM opens to this code
 * ({@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}, in {@link DaemonStarter} and the jar's
 * manifest). A JVM started without it checks the user alone and says so once in its log.
 */
final class PeerCheck {
  private static final Logger LOG = LoggerFactory.getLogger(PeerCheck.class);

  /** {@code SOL_SOCKET} and {@code SO_PEERCRED} on Linux. */
  private static final int SOL_SOCKET = 1;
  private static final int SO_PEERCRED = 17;

  /** The namespaces compared. */
  private static final List<String> NAMESPACES = List.of("user", "mnt");

  private static final String SELF = System.getProperty("user.name");
  private static final Optional<Method> GET_FD = getFd();
  private static final Optional<Method> GETSOCKOPT = GET_FD.isPresent() ? getsockopt() : Optional.empty();
  private static volatile boolean warned;

  private PeerCheck() {}

  /**
   * Closes {@code channel} and throws when its peer is refused ({@link #refusal}), saying so in
   * the log for {@code socket}; returns otherwise.
   *
   * @throws IOException naming why, after closing the channel
   */
  static void admit(SocketChannel channel, String socket) throws IOException {
    Optional<String> why = refusal(channel);
    if (why.isPresent()) {
      LOG.warn("refused {} on {}", why.get(), socket);
      channel.close();
      throw new IOException("refused " + why.get());
    }
  }

  /** Why {@code channel}'s peer is refused, or empty when it may talk to the daemon. */
  static Optional<String> refusal(SocketChannel channel) {
    try {
      UnixDomainPrincipal peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
      if (!peer.user().getName().equals(SELF)) {
        return Optional.of("a connection from user " + peer.user().getName() + " (the socket is " + SELF + "'s)");
      }
    } catch (IOException | UnsupportedOperationException e) {
      LOG.debug("no peer credentials ({}); the socket's mode 0600 guards it", e.toString());
      return Optional.empty();
    }
    OptionalLong pid = peerPid(channel);
    if (pid.isEmpty()) {
      return Optional.empty();
    }
    return namespaces(pid.getAsLong(), Path.of("/proc"));
  }

  /**
   * Why the process {@code pid} is refused: a namespace of it that differs from this process's,
   * or cannot be read, under {@code proc}.
   */
  static Optional<String> namespaces(long pid, Path proc) {
    for (String ns : NAMESPACES) {
      String mine;
      String theirs;
      try {
        mine = Files.readSymbolicLink(proc.resolve("self/ns/" + ns)).toString();
      } catch (IOException | UnsupportedOperationException e) {
        return Optional.empty(); // no namespaces to compare on this system
      }
      try {
        theirs = Files.readSymbolicLink(proc.resolve(pid + "/ns/" + ns)).toString();
      } catch (IOException | UnsupportedOperationException e) {
        return Optional.of("a connection from process " + pid + ", whose " + ns + " namespace cannot be read");
      }
      if (!mine.equals(theirs)) {
        return Optional.of("a connection from process " + pid + " in another " + ns + " namespace (" + theirs
            + ", not " + mine + "): a sandboxed process");
      }
    }
    return Optional.empty();
  }

  /** The peer's pid from {@code SO_PEERCRED}, or empty when this JVM cannot read it. */
  static OptionalLong peerPid(SocketChannel channel) {
    if (GETSOCKOPT.isEmpty()) {
      if (!warned) {
        warned = true;
        LOG.warn("this JVM cannot read a socket peer's pid (start it with --add-opens java.base/sun.nio.ch=ALL-UNNAMED):"
            + " a peer in another namespace of the same user is not refused");
      }
      return OptionalLong.empty();
    }
    try {
      // ucred is {pid, uid, gid}: asked for one int, the kernel copies the pid.
      int pid = (Integer) GETSOCKOPT.get().invoke(null, GET_FD.orElseThrow().invoke(channel), false, SOL_SOCKET,
          SO_PEERCRED);
      return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
    } catch (ReflectiveOperationException | RuntimeException e) {
      Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
      LOG.debug("no peer pid: {}", String.valueOf(cause));
      return OptionalLong.empty();
    }
  }

  private static Optional<Method> getsockopt() {
    try {
      Method m = Class.forName("sun.nio.ch.Net").getDeclaredMethod("getIntOption0", FileDescriptor.class,
          boolean.class, int.class, int.class);
      m.setAccessible(true);
      return Optional.of(m);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Optional<Method> getFd() {
    try {
      Method m = Class.forName("sun.nio.ch.SelChImpl").getMethod("getFD");
      m.setAccessible(true);
      return Optional.of(m);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
