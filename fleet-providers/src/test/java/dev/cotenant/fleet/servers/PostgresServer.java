package dev.cotenant.fleet.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server on a free port of 127.0.0.1, started from the machine's binaries
 * ({@code /usr/lib/postgresql/VERSION/bin}; {@code .ci/run} installs Debian's {@code postgresql}
 * when they are missing) in a fresh temporary cluster with password authentication
 * ({@code scram-sha-256}) for the user {@value #USER}, with a password of its own. Each cluster
 * is a copy of one {@code initdb} made per JVM. As root it runs as {@code nobody}, since
 * PostgreSQL refuses to run as root. {@code fsync} is off (a test cluster need not survive a
 * power cut); commits stay synchronous, so a killed server keeps every committed transaction. {@link #close()} stops it and checks that none of its processes is left.
 */
public final class PostgresServer extends LocalServer {
  /** The superuser of the test cluster. */
  public static final String USER = "cotenant";

  private static final String TEMPLATE_PREFIX = "cotenant-pg-template-";
  private static Template template; // guarded by PostgresServer.class

  private final Path bin;
  private final Path data;
  private final Path sockets;
  private final Path passwordFile;
  private final Path log;
  private volatile String password;
  private final boolean durable;

  private PostgresServer(boolean durable) throws IOException {
    super("cotenant-pg");
    this.bin = binaries();
    this.data = directory.resolve("data");
    this.sockets = directory.resolve("sockets");
    this.passwordFile = directory.resolve("password");
    this.log = directory.resolve("postgres.log");
    this.durable = durable;
  }

  /** Creates a fresh cluster, starts it and waits until it accepts a connection. */
  public static PostgresServer start() throws IOException {
    return start(false);
  }

  /**
   * As {@link #start()}; with {@code durable}, PostgreSQL's own defaults ({@code fsync},
   * {@code full_page_writes}, {@code synchronous_commit} on), as the benchmarks compare it with
   * the file store, which syncs every write.
   */
  public static PostgresServer start(boolean durable) throws IOException {
    PostgresServer p = new PostgresServer(durable);
    try {
      p.init();
      p.launch();
      p.ownPassword();
    } catch (IOException | RuntimeException e) {
      p.close();
      throw e;
    }
    return p;
  }

  static Path binaries() {
    Path root = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(root)) {
      try (Stream<Path> versions = Files.list(root)) {
        List<Path> found = new ArrayList<>();
        versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("postgres"))
            && Files.isExecutable(b.resolve("initdb"))).forEach(found::add);
        found.sort(Comparator.comparing(b -> versionOf(b.getParent())));
        if (!found.isEmpty()) {
          return found.get(found.size() - 1);
        }
      } catch (IOException e) {
        // Reported below.
      }
    }
    throw new IllegalStateException(
        "PostgreSQL's server binaries are not installed (looked for /usr/lib/postgresql/*/bin/postgres): the fleet "
            + "tests start a real PostgreSQL. Install Debian's package (apt-get install postgresql), as .ci/run does");
  }

  private static int versionOf(Path dir) {
    try {
      return Integer.parseInt(dir.getFileName().toString().replaceAll("[^0-9].*$", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static List<String> asServerUser(String... command) {
    List<String> out = new ArrayList<>();
    if (root()) {
      out.addAll(List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
    }
    out.addAll(List.of(command));
    return out;
  }

  /** As root, hands {@code paths} to the server's user, who must write or read them. */
  private static void ownedByServerUser(Path... paths) throws IOException {
    if (!root()) {
      return;
    }
    UserPrincipalLookupService users = paths[0].getFileSystem().getUserPrincipalLookupService();
    UserPrincipal nobody = users.lookupPrincipalByName(String.valueOf(NOBODY));
    GroupPrincipal nogroup = users.lookupPrincipalByGroupName(String.valueOf(NOBODY));
    for (Path p : paths) {
      PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class);
      view.setOwner(nobody);
      view.setGroup(nogroup);
    }
  }

  private static void run(List<String> command, Path log, String what) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (p.waitFor() != 0) {
        throw new IllegalStateException(what + " failed: " + tail(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IllegalStateException("interrupted while " + what + " ran", e);
    }
  }

  /**
   * The JVM's template cluster, made by {@code initdb} on first use and copied for each server:
   * {@code initdb} takes about a second, a copy a fifth of that, and mutation testing starts a
   * cluster for every test it runs against every mutant. The directory goes when the JVM exits;
   * one left by a JVM that was killed is removed by the next JVM that makes its own.
   */
  private static synchronized Template template(Path bin) throws IOException {
    if (template == null) {
      removeTemplatesOfEndedJvms();
      Path dir = Files.createTempDirectory(TEMPLATE_PREFIX + ProcessHandle.current().pid() + "-");
      try {
        String password = newPassword();
        Path passwordFile = dir.resolve("password");
        Files.writeString(passwordFile, password + "\n");
        ownedByServerUser(dir, passwordFile);
        run(asServerUser(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER,
            "--auth=scram-sha-256", "--pwfile=" + passwordFile, "-E", "UTF8", "--no-sync", "--locale=C"),
            dir.resolve("initdb.log"), "initdb");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "postgres-template-cleanup"));
        template = new Template(dir.resolve("data"), password);
      } catch (IOException | RuntimeException e) {
        deleteTree(dir);
        throw e;
      }
    }
    return template;
  }

  private static void removeTemplatesOfEndedJvms() {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      all.filter(d -> d.getFileName().toString().startsWith(TEMPLATE_PREFIX)).forEach(d -> {
        String rest = d.getFileName().toString().substring(TEMPLATE_PREFIX.length());
        try {
          long pid = Long.parseLong(rest.substring(0, rest.indexOf('-')));
          if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return;
          }
        } catch (RuntimeException e) {
          return; // Not a name this class made.
        }
        deleteTree(d);
      });
    } catch (IOException e) {
      // A leftover template is not worth failing a test for.
    }
  }

  private static String newPassword() {
    return "pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
  }

  private record Template(Path data, String password) {}

  private void init() throws IOException {
    Template t = template(bin);
    Files.createDirectories(sockets);
    ownedByServerUser(directory, sockets);
    run(asServerUser("cp", "-a", t.data().toString(), data.toString()), directory.resolve("copy.log"),
        "copying the template cluster");
    password = t.password();
  }

  /** Gives the cluster a password of its own, in place of the template's. */
  private void ownPassword() throws IOException {
    String own = newPassword();
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("ALTER ROLE " + USER + " PASSWORD '" + own + "'");
    } catch (SQLException e) {
      throw new IllegalStateException("could not set the cluster's password: " + e.getMessage(), e);
    }
    Files.writeString(passwordFile, own + "\n");
    password = own;
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>(asServerUser(bin.resolve("postgres").toString(), "-D", data.toString(),
        "-p", String.valueOf(port), "-k", sockets.toString(), "-c", "listen_addresses=127.0.0.1",
        "-c", "max_connections=200"));
    if (!durable) {
      // No fsync: a test cluster need not survive a power cut. Commits stay synchronous, so a
      // SIGKILLed server (kill(), then restart()) still has every committed transaction.
      command.addAll(List.of("-c", "fsync=off", "-c", "full_page_writes=off"));
    }
    process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("postgres exited with " + process.exitValue() + ": " + tail(log));
      }
      try (Connection c = connect("postgres")) {
        return;
      } catch (SQLException e) {
        last = e;
      }
      sleep(50);
    }
    stop(Duration.ofSeconds(5));
    throw new IllegalStateException("PostgreSQL did not accept a connection in 60 s (" + last + "): " + tail(log));
  }

  /** A JDBC connection to {@code database} as {@value #USER}. */
  public Connection connect(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", USER);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(url(database), p);
  }

  /** Creates a database and returns its JDBC URL. */
  public String createDatabase(String name) throws SQLException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE \"" + name.replace("\"", "") + "\"");
    }
    return url(name);
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/DATABASE}, with no credentials in it. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** The password of {@value #USER}. */
  public String password() {
    return password;
  }

  /** A file holding the password, as the provider's password-file key expects. */
  public Path passwordFile() {
    return passwordFile;
  }

  /** Starts the server again on the same port and data after {@link #kill()}. */
  public void restart() throws IOException {
    launch();
  }

  @Override
  public void close() {
    try {
      // SIGTERM is PostgreSQL's "smart" shutdown; SIGINT ends the sessions at once ("fast").
      if (process != null && process.isAlive()) {
        List<ProcessHandle> all = processes();
        try {
          new ProcessBuilder("kill", "-INT", String.valueOf(process.pid())).start().waitFor();
        } catch (IOException | InterruptedException e) {
          // Fall through to SIGKILL.
        }
        awaitQuietly(all);
      }
      stop(Duration.ofSeconds(5));
    } finally {
      deleteTree(directory);
    }
  }

  private static void awaitQuietly(List<ProcessHandle> all) {
    try {
      awaitGone(all, Duration.ofSeconds(15));
    } catch (IllegalStateException e) {
      // stop() SIGKILLs what is left.
    }
  }
}
