package dev.cotenant.cli.daemon;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code cotenant connect}: reaches the daemon (starting one unless told not to) and runs the
 * {@link Shim} on this process's standard input and output. Shared by the picocli command and
 * the fast path {@link #main} takes, which parses the few options by hand so that a shim loads no
 * CLI framework and no JSON data binding (its start-up and memory are a bare JVM's, near enough).
 */
public final class Connect {
  private Connect() {}

  /**
   * Connects and relays; returns the exit status.
   *
   * @param name the server
   * @param configs configuration files, absolute
   * @param noStart fail instead of starting a daemon
   * @param serveArgs arguments after {@code serve} for a daemon it starts
   * @param home the Cotenant home
   * @param env the environment a daemon it starts inherits
   * @param err one line for people when something goes wrong
   */
  public static int run(String name, List<String> configs, boolean noStart, List<String> serveArgs, CotenantHome home,
      Map<String, String> env, PrintWriter err) throws IOException, InterruptedException {
    SocketChannel socket;
    try {
      if (noStart) {
        Optional<SocketChannel> ch = DaemonStarter.tryConnect(home.socket());
        if (ch.isEmpty()) {
          err.println("cotenant connect " + name + ": no daemon runs for " + home.dir() + " (start one: cotenant serve)");
          err.flush();
          return Shim.EXIT_DAEMON;
        }
        socket = ch.get();
      } else {
        socket = new DaemonStarter(home, serveArgs, env).connectOrStart();
      }
    } catch (DaemonStarter.UnreachableException e) {
      err.println("cotenant connect " + name + ": " + e.getMessage());
      err.flush();
      return Shim.EXIT_DAEMON;
    } catch (IOException | RuntimeException e) {
      // The home cannot hold a daemon (a regular file, read-only, a socket path over the limit):
      // one line saying which and why, never a stack trace.
      err.println("cotenant connect " + name + ": cannot reach or start the daemon in " + home.dir() + ": " + why(e));
      err.flush();
      return Shim.EXIT_DAEMON;
    }
    // A daemon that died is replaced as the first one was: started unless told not to.
    Shim.Reconnect again = noStart
        ? () -> DaemonStarter.tryConnect(home.socket()).orElseThrow(() -> new IOException("no daemon runs for " + home.dir()))
        : () -> new DaemonStarter(home, serveArgs, env).connectOrStart();
    try (socket) {
      return new Shim(name, configs, new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out), err)
          .run(socket, again);
    }
  }

  /**
   * Makes sure a daemon runs for {@code home}, starting one (race-free, {@link DaemonStarter})
   * when none answers, then returns 0 without relaying anything: what the native shim runs when
   * it finds no daemon, so that only the JVM ever takes the start lock and starts a daemon.
   * Returns 1 with one line on {@code err} when no daemon could be reached or started.
   *
   * @param name the server, for the message
   * @param serveArgs arguments after {@code serve} for a daemon it starts
   * @param home the Cotenant home
   * @param env the environment a daemon it starts inherits
   * @param err one line for people when something goes wrong
   */
  public static int startOnly(String name, List<String> serveArgs, CotenantHome home, Map<String, String> env,
      PrintWriter err) throws InterruptedException {
    try (SocketChannel socket = new DaemonStarter(home, serveArgs, env).connectOrStart()) {
      return 0;
    } catch (DaemonStarter.UnreachableException e) {
      err.println("cotenant connect " + name + ": " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      err.println("cotenant connect " + name + ": cannot reach or start the daemon in " + home.dir() + ": " + why(e));
    }
    err.flush();
    return Shim.EXIT_DAEMON;
  }

  /** What went wrong, in words: the exception's message, and for a file system error its reason. */
  static String why(Exception e) {
    if (e instanceof java.nio.file.FileSystemException) {
      java.nio.file.FileSystemException f = (java.nio.file.FileSystemException) e;
      String reason = f.getReason() == null ? e.getClass().getSimpleName() : f.getReason();
      return (f.getFile() == null ? "" : f.getFile() + ": ") + reason.toLowerCase(java.util.Locale.ROOT);
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /**
   * The fast path: {@code connect NAME [CONFIG...] [--no-start] [--start-only] [--records-dir DIR]
   * [--set K=V]...} parsed by hand ({@code --start-only}: {@link #startOnly}). Returns empty for anything else (help, an unknown option, a missing name), which
   * the full command line then handles with its usual messages.
   */
  public static Optional<Integer> fastPath(String[] args, Map<String, String> env, Path home, Path workingDirectory,
      PrintWriter err) throws IOException, InterruptedException {
    if (args.length < 2 || !args[0].equals("connect")) {
      return Optional.empty();
    }
    String name = null;
    List<String> configs = new ArrayList<>();
    List<String> serveArgs = new ArrayList<>();
    boolean noStart = false;
    boolean startOnly = false;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--no-start")) {
        noStart = true;
      } else if (a.equals("--start-only")) {
        startOnly = true;
      } else if ((a.equals("--records-dir") || a.equals("--set")) && i + 1 < args.length) {
        String v = args[++i];
        serveArgs.add(a);
        serveArgs.add(a.equals("--records-dir") ? workingDirectory.resolve(v).normalize().toString() : v);
      } else if (a.startsWith("-")) {
        return Optional.empty();
      } else if (name == null) {
        name = a;
      } else {
        configs.add(workingDirectory.resolve(a).normalize().toString());
      }
    }
    if (name == null || name.isBlank() || (startOnly && noStart)) {
      return Optional.empty();
    }
    CotenantHome cotenantHome;
    try {
      cotenantHome = CotenantHome.resolve(env, home);
    } catch (IllegalArgumentException e) {
      err.println("cotenant connect " + name + ": " + e.getMessage());
      err.flush();
      return Optional.of(2);
    }
    if (startOnly) {
      return Optional.of(startOnly(name, serveArgs, cotenantHome, env, err));
    }
    return Optional.of(run(name, configs, noStart, serveArgs, cotenantHome, env, err));
  }
}
