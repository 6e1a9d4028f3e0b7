package dev.cotenant.cli.route;

import dev.cotenant.spi.files.AtomicFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The native shim: {@code cotenant-shim}, a small C program (cli/src/main/c) that relays a
 * client's stdio session to the daemon as {@code cotenant connect} does, in well under a MiB of
 * proportional memory instead of a JVM's 20-odd. The build compiles it when a C compiler is
 * there and puts it in the runnable jar at {@link #resource()}; {@code route --apply} installs it
 * from the jar into the Cotenant home's {@code lib/} as {@code cotenant-shim-<the first 16 hex
 * digits of its SHA-256>} (atomically, mode 0755, once per content), checks that it runs on this
 * machine ({@code --version} exits 0), and writes routed entries that start it. Where the jar has
 * none for this machine, or it does not run, routed entries start the JVM shim as before.
 */
public final class NativeShim {
  /** How long {@code cotenant-shim --version} may take. */
  static final long CHECK_SECONDS = 10;

  private NativeShim() {}

  /**
   * Which shim routed entries start, and why.
   *
   * @param path the native shim's installed path (where it is or will be), null for the JVM shim
   * @param why why the JVM shim was chosen; empty for the native one
   */
  public record Choice(@Nullable Path path, String why) {
    /** The native shim at {@code path}. */
    public static Choice of(Path path) {
      return new Choice(path, "");
    }

    /** The JVM shim, for {@code why}. */
    public static Choice jvm(String why) {
      return new Choice(null, why);
    }

    /** True for the native shim. */
    public boolean isNative() {
      return path != null;
    }
  }

  /** This machine's platform as the build names it: {@code linux-<os.arch>}, e.g. {@code linux-amd64}. */
  public static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '-');
    return os + "-" + System.getProperty("os.arch", "");
  }

  /** Where the runnable jar holds the native shim for this machine: {@code native/<platform>/cotenant-shim}. */
  public static String resource() {
    return "native/" + platform() + "/cotenant-shim";
  }

  /** The native shim this jar holds for this machine, if it holds one. */
  public static Optional<byte[]> bundled() throws IOException {
    try (InputStream in = NativeShim.class.getClassLoader().getResourceAsStream(resource())) {
      return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
    }
  }

  /** The file name an installed copy of {@code binary} has: {@code cotenant-shim-<16 hex of its SHA-256>}. */
  public static String fileName(byte[] binary) {
    try {
      return "cotenant-shim-" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(binary)).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /**
   * Installs {@code binary} into {@code dir} under {@link #fileName}, unless a copy with the same
   * content is there and no one else could have written it ({@link PrivateFiles#whyUntrusted}):
   * written atomically ({@link AtomicFiles#replace}, 0700 from the temp file's creation on), so a
   * client never starts half a file, in {@code dir} made 0700 ({@link PrivateFiles#directory}).
   *
   * @return the installed path
   * @throws IOException when it cannot be written, or when others could change it even so (the
   *     reason: a directory above it open to others)
   */
  public static Path install(Path dir, byte[] binary) throws IOException {
    Path target = dir.resolve(fileName(binary));
    PrivateFiles.directory(dir);
    if (sameContent(target, binary) && Files.isExecutable(target) && PrivateFiles.whyUntrusted(target).isEmpty()) {
      return target;
    }
    AtomicFiles.replace(target, binary, AtomicFiles.OWNER_EXECUTABLE);
    Optional<String> why = PrivateFiles.whyUntrusted(target);
    if (why.isPresent()) {
      throw new IOException("others could change it: " + why.get());
    }
    return target;
  }

  private static boolean sameContent(Path file, byte[] binary) {
    try {
      return Files.isRegularFile(file) && Files.size(file) == binary.length
          && java.util.Arrays.equals(Files.readAllBytes(file), binary);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether {@code shim} runs on this machine: {@code shim --version} must exit 0 within
   * {@value #CHECK_SECONDS} s. Empty when it does, else why not, in words.
   */
  public static Optional<String> check(Path shim) {
    Process p;
    try {
      p = new ProcessBuilder(shim.toString(), "--version").redirectErrorStream(true)
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    } catch (IOException e) {
      return Optional.of("it cannot be run here (" + e.getMessage() + ")");
    }
    try {
      java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try (InputStream in = p.getInputStream()) {
          return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
          return "";
        }
      });
      if (!p.waitFor(CHECK_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.of("its --version did not answer within " + CHECK_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        String said = out.join();
        return Optional.of("its --version exited with status " + p.exitValue() + (said.isEmpty() ? "" : ": " + said));
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while checking it");
    }
  }

  /**
   * Which shim to route with, without writing anything: the native one when this jar holds it for
   * this machine and it runs here (the installed copy in {@code lib} when it is there already,
   * else a temporary copy that is deleted again), else the JVM shim and why.
   *
   * @param binary the native shim this jar holds, if any
   * @param lib the Cotenant home's {@code lib} directory
   */
  public static Choice plan(Optional<byte[]> binary, Path lib) {
    if (binary.isEmpty()) {
      return Choice.jvm("this cotenant.jar holds no native shim for " + platform()
          + " (it was built without a C compiler, or for another platform)");
    }
    Path target = lib.resolve(fileName(binary.get()));
    if (sameContent(target, binary.get()) && Files.isExecutable(target)) {
      return check(target).map(why -> Choice.jvm("the native shim " + target + " does not run here: " + why))
          .orElse(Choice.of(target));
    }
    Path tmp = null;
    try {
      tmp = Files.createTempFile("cotenant-shim-", ".check",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Files.write(tmp, binary.get());
      return check(tmp).map(why -> Choice.jvm("the native shim does not run here: " + why)).orElse(Choice.of(target));
    } catch (IOException | UnsupportedOperationException e) {
      return Choice.jvm("the native shim could not be tried here: " + e.getMessage());
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          // A temporary file left in the temporary directory.
        }
      }
    }
  }

  /**
   * Installs {@code binary} into {@code lib} and checks the installed copy: the native shim at its
   * installed path when it runs, else the JVM shim and why.
   */
  public static Choice installAndCheck(byte[] binary, Path lib) {
    Path installed;
    try {
      installed = install(lib, binary);
    } catch (IOException e) {
      return Choice.jvm("the native shim could not be installed in " + lib + ": " + e.getMessage());
    }
    return check(installed).map(why -> Choice.jvm("the native shim " + installed + " does not run here: " + why))
        .orElse(Choice.of(installed));
  }
}
