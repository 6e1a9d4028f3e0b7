package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.process.ProcessSnapshot;
import dev.cotenant.testkit.process.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every provider of every SPI promises ({@link NamedProvider}): a stable, lowercase name and
 * a trivial public no-arg constructor. The provider-based suites extend this one, so a provider's
 * suite checks these rules too.
 *
 * <p><b>Checks:</b> the name is non-blank, lowercase and without surrounding blanks; it is the same
 * on every call and on every instance; the constructor does no IO, as far as a test can tell: it
 * starts no process and writes nothing under {@code user.home} or {@code java.io.tmpdir} (both
 * pointed at empty directories while the constructor runs); the SPI's factory method creates what
 * the provider provides from a context with empty configuration, never null.
 *
 * <p><b>Extending:</b> implement {@link #constructor()} with the provider's no-arg constructor
 * ({@code MyProvider::new}); override {@link #context()} when the provider needs configuration.
 * The suite calls the constructor itself, once per check.
 *
 * <p><b>Thread-safety:</b> JUnit creates one suite instance per test; the suites are not meant to
 * run in parallel with other tests (the IO check swaps two system properties).
 *
 * @param <P> the provider interface
 * @param <T> what its factory method creates
 */
public abstract class NamedProviderContract<P extends NamedProvider, T> {
  /** A fresh directory per test; {@link #context()} uses it as the records directory. */
  @TempDir protected Path directory;

  private final BiFunction<? super P, ProviderContext, ? extends T> factory;

  /**
   * For the suite of one SPI.
   *
   * @param factory the SPI's factory method, e.g. {@code EvidenceSourceProvider::create}
   */
  protected NamedProviderContract(BiFunction<? super P, ProviderContext, ? extends T> factory) {
    this.factory = factory;
  }

  /** The provider's public no-arg constructor, e.g. {@code MyProvider::new}. */
  protected abstract Supplier<? extends P> constructor();

  /** The context the provider's factory method receives: empty configuration, {@link #directory} as records directory. */
  protected ProviderContext context() {
    return new ProviderContext(ProviderConfig.empty(), directory);
  }

  /**
   * A new provider from {@link #constructor()}, made with {@code user.home} and
   * {@code java.io.tmpdir} pointed at directories of {@link #directory}: a provider whose
   * constructor writes (which {@link #constructionDoesNoIo} reports) writes there, never into the
   * home of whoever runs the suite.
   */
  protected final P provider() {
    Path scratch = directory.resolve("construction");
    String oldHome = System.getProperty("user.home");
    String oldTmp = System.getProperty("java.io.tmpdir");
    try {
      System.setProperty("user.home", Files.createDirectories(scratch.resolve("user.home")).toString());
      System.setProperty("java.io.tmpdir", Files.createDirectories(scratch.resolve("java.io.tmpdir")).toString());
      return assertNotNullProvider(constructor().get());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      System.setProperty("user.home", oldHome);
      System.setProperty("java.io.tmpdir", oldTmp);
    }
  }

  /** What a new provider's factory method creates from {@link #context()}, checked not to be null. */
  protected final T created() {
    T made = factory.apply(provider(), context());
    assertNotNull(made, "create(context) returned null");
    return made;
  }

  @Test
  void createWorksWithAnEmptyConfiguration() {
    created();
  }

  @Test
  void nameIsNonBlankAndLowercase() {
    String name = provider().name();
    assertNotNull(name, "name() returned null");
    assertFalse(name.isBlank(), "name() is blank");
    assertEquals(name.strip(), name, "name() has surrounding blanks: '" + name + "'");
    assertEquals(name.toLowerCase(Locale.ROOT), name, "name() is not lowercase: '" + name + "'");
  }

  @Test
  void nameIsStableAcrossCallsAndInstances() {
    P first = provider();
    String name = first.name();
    for (int i = 0; i < 3; i++) {
      assertEquals(name, first.name(), "name() changed between calls on one instance");
      assertEquals(name, provider().name(), "name() differs between two instances");
    }
  }

  @Test
  void constructionDoesNoIo() throws Exception {
    Path home = Files.createDirectory(directory.resolve("user.home"));
    Path tmp = Files.createDirectory(directory.resolve("java.io.tmpdir"));
    ProcessSnapshot before = ProcessSnapshot.take();
    String oldHome = System.getProperty("user.home");
    String oldTmp = System.getProperty("java.io.tmpdir");
    System.setProperty("user.home", home.toString());
    System.setProperty("java.io.tmpdir", tmp.toString());
    try {
      for (int i = 0; i < 3; i++) {
        assertNotNullProvider(constructor().get());
      }
    } finally {
      System.setProperty("user.home", oldHome);
      System.setProperty("java.io.tmpdir", oldTmp);
    }
    assertNoProcessStartedSince(before, "the constructor");
    assertEquals(List.of(), listAll(home), "the constructor wrote under user.home");
    assertEquals(List.of(), listAll(tmp), "the constructor wrote under java.io.tmpdir");
  }

  /** Fails, naming the processes {@code who} started since {@code before}, unless there are none; kills them. */
  static void assertNoProcessStartedSince(ProcessSnapshot before, String who) {
    List<ProcessHandle> started = before.startedSince();
    Processes.killTrees(started);
    assertTrue(started.isEmpty(), who + " started processes: "
        + started.stream().map(Processes::describe).collect(Collectors.joining("; ")));
  }

  /**
   * Asks {@code one} twice and {@code twin} (created alike) once about each of {@code inputs}
   * through {@code answer}: every answer must equal the first. Fails with {@code again} or
   * {@code alike}, followed by the input.
   */
  static <T, I> void assertPure(T one, T twin, List<I> inputs, BiFunction<T, I, ?> answer, String again, String alike) {
    for (I input : inputs) {
      Object first = answer.apply(one, input);
      assertEquals(first, answer.apply(one, input), again + ": " + input);
      assertEquals(first, answer.apply(twin, input), alike + ": " + input);
    }
  }

  private static List<String> listAll(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).sorted().collect(Collectors.toList());
    }
  }

  private static <T> T assertNotNullProvider(T provider) {
    assertNotNull(provider, "the constructor supplier returned null");
    return provider;
  }
}
