package dev.cotenant.gateway.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.Stderr;
import dev.cotenant.gateway.providers.ProviderSelection.Origin;
import dev.cotenant.gateway.providers.ProviderSelection.Selected;
import dev.cotenant.gateway.providers.fixtures.FakePreflightTransportProvider;
import dev.cotenant.gateway.providers.fixtures.FakeRecordStoreProvider;
import dev.cotenant.gateway.providers.fixtures.NamedFixture;
import dev.cotenant.testkit.records.InMemoryRecordStores;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every selection rule for a single-provider SPI, through the real {@link java.util.ServiceLoader}
 * reading the registrations under {@code provider-fixtures/<scenario>/META-INF/services}, with
 * the exact messages a host would see.
 */
class ProviderLoadingTest {
  private static final String F = "dev.cotenant.gateway.providers.fixtures.";
  private static final String SERVICES = "META-INF/services/dev.cotenant.spi.RecordStoreProvider";
  private static final ProviderContext CONTEXT = new ProviderContext(ProviderConfig.empty(), Path.of("records"));

  private static Selected<RecordStoreProvider> select(String scenario, Map<String, String> config) {
    return ProviderSelection.selectOne(
        Spi.RECORD_STORES, ScopedServices.loader(scenario).discover(RecordStoreProvider.class), ProviderConfig.of(config));
  }

  private static String failure(String scenario, Map<String, String> config) {
    return assertThrows(ProviderLoadingException.class, () -> select(scenario, config)).getMessage();
  }

  private static Map<String, String> named(String name) {
    return Map.of("cotenant.records.provider", name);
  }

  @Test
  void aSingleDiscoveredProviderIsUsed() {
    Selected<RecordStoreProvider> s = select("single", Map.of());
    assertEquals("fake", s.name());
    assertInstanceOf(FakeRecordStoreProvider.class, s.provider());
    assertEquals(Origin.DISCOVERED, s.origin());
    assertInstanceOf(InMemoryRecordStores.class, ProviderSelection.create(Spi.RECORD_STORES, s, p -> p.create(CONTEXT)));
  }

  @Test
  void explicitConfigurationWinsAmongSeveral() {
    String stderr = capturingStderr(() -> select("several", named("fake")).provider());
    // The two registrations that could not load are reported, not swallowed, though another was chosen.
    assertTrue(
        stderr.contains(
            "RecordStoreProvider registration " + F + "ThrowsInConstructorRecordStoreProvider (could not be instantiated:"
                + " IllegalStateException: constructor refuses) failed to load and was not selected"
                + " (RecordStoreProvider \"fake\" is used because cotenant.records.provider names it); fix or remove it in "
                + SERVICES),
        stderr);
    assertTrue(stderr.contains("RecordStoreProvider registration " + F + "NoSuchProvider (not found) failed to load"), stderr);
  }

  @Test
  void explicitConfigurationWinsOverTheDefaultName() {
    assertEquals("fake", select("with-default", named(" fake ")).name());
  }

  @Test
  void anUnknownNameListsTheAvailableOnesAndWhatToAdd() {
    assertEquals(
        "cotenant.records.provider set to \"s3\" but no RecordStoreProvider named \"s3\" is on the classpath;"
            + " available: [file]. Add a jar registering it in META-INF/services/dev.cotenant.spi.RecordStoreProvider",
        failure("default-only", named("s3")));
  }

  @Test
  void anUnknownNameAlsoNamesTheRegistrationsThatFailedSinceOneMayBeTheOneMeant() {
    ProviderLoadingException e =
        assertThrows(ProviderLoadingException.class, () -> select("several", named("s3")));
    assertEquals(
        "cotenant.records.provider set to \"s3\" but no RecordStoreProvider named \"s3\" is on the classpath;"
            + " available: [broken-create, fake, twin]. Add a jar registering it in " + SERVICES
            + ". These registered providers failed to load, and the one named may be among them: ["
            + F + "ThrowsInConstructorRecordStoreProvider (could not be instantiated: IllegalStateException: constructor refuses); "
            + F + "NoSuchProvider (not found)]",
        e.getMessage());
    // The provider's own error travels as the cause, the next one as suppressed.
    assertEquals("constructor refuses", rootCause(e.getCause()).getMessage());
    assertEquals(1, e.getSuppressed().length);
  }

  @Test
  void twoProvidersWithTheSelectedNameFailFastNamingBothClasses() {
    String expected =
        "2 RecordStoreProviders in " + SERVICES + " are named \"twin\": " + F + "TwinOneRecordStoreProvider, " + F
            + "TwinTwoRecordStoreProvider; a name must be unique within an SPI. Remove all but one of them";
    assertEquals(expected, failure("several", named("twin")));
    assertEquals(expected, failure("twins-only", Map.of()), "no configuration: the only name is ambiguous");
  }

  @Test
  void aDuplicatedNameThatIsNotSelectedDoesNotBlockTheSelection() {
    assertEquals("broken-create", select("healthy-several", named("broken-create")).name());
  }

  @Test
  void aProviderThatThrowsInCreateIsReportedWithSpiClassAndServicesFile() {
    Selected<RecordStoreProvider> s = select("several", named("broken-create"));
    ProviderLoadingException e =
        assertThrows(
            ProviderLoadingException.class,
            () -> ProviderSelection.create(Spi.RECORD_STORES, s, p -> p.create(CONTEXT)));
    assertEquals(
        "RecordStoreProvider \"broken-create\" (" + F + "ThrowsOnCreateRecordStoreProvider) failed in create():"
            + " IllegalStateException: records directory is not writable. It is registered in " + SERVICES,
        e.getMessage());
    assertEquals("records directory is not writable", e.getCause().getMessage());
  }

  @Test
  void aProviderThatThrowsInItsConstructorIsReportedWhenNothingElseCanBeChosen() {
    ProviderLoadingException e = assertThrows(ProviderLoadingException.class, () -> select("broken-only", Map.of()));
    assertEquals(
        "no RecordStoreProvider could be loaded: [" + F + "ThrowsInConstructorRecordStoreProvider (could not be"
            + " instantiated: IllegalStateException: constructor refuses)]. Fix or remove the registration in " + SERVICES,
        e.getMessage());
    assertInstanceOf(java.util.ServiceConfigurationError.class, e.getCause());
  }

  @Test
  void aBrokenRegistrationMakesTheUnconfiguredChoiceUncertainRatherThanSilentlySkipped() {
    // One provider loaded and one did not: the broken one may be the one meant, so no guess.
    assertEquals(
        "cannot choose a RecordStoreProvider: cotenant.records.provider is not set and no discovered provider is the"
            + " default \"file\"; discovered: [fake (" + F + "FakeRecordStoreProvider)]; failed to load: [" + F
            + "FakePreflightTransportProvider (not a subtype)]. Set cotenant.records.provider to one of the discovered names",
        failure("not-a-subtype", Map.of()));
  }

  @Test
  void severalWithoutConfigurationAndWithoutTheDefaultAskForConfiguration() {
    assertEquals(
        "cannot choose a RecordStoreProvider: cotenant.records.provider is not set and no discovered provider is the"
            + " default \"file\"; discovered: [broken-create (" + F + "ThrowsOnCreateRecordStoreProvider), fake (" + F
            + "FakeRecordStoreProvider), twin (" + F + "TwinOneRecordStoreProvider), twin (" + F
            + "TwinTwoRecordStoreProvider)]. Set cotenant.records.provider to one of the discovered names",
        failure("healthy-several", Map.of()));
  }

  @Test
  void severalWithoutConfigurationUseTheDefaultNameAndStillReportTheBrokenOne() {
    String[] chosen = new String[1];
    String stderr = capturingStderr(() -> chosen[0] = select("with-default", Map.of()).name());
    assertEquals("file", chosen[0]);
    assertTrue(
        stderr.contains("RecordStoreProvider registration " + F + "ThrowsInConstructorRecordStoreProvider"), stderr);
    assertTrue(stderr.contains("because it is the default"), stderr);
  }

  @Test
  void noneDiscoveredNamesTheSpiAndWhatToAdd() {
    assertEquals(
        "no RecordStoreProvider is on the classpath. Add a jar registering one in " + SERVICES
            + " (cotenant-default-providers registers \"file\"), or pass an instance to"
            + " Cotenant.builder().recordStores(...)",
        failure("no-such-scenario", Map.of()));
  }

  @Test
  void aBlankConfiguredNameCountsAsUnset() {
    assertEquals("fake", select("single", named("  ")).name());
  }

  @Test
  void theLoaderKeepsGoingPastEveryBrokenRegistration() {
    Discovered<RecordStoreProvider> d = ScopedServices.loader("several").discover(RecordStoreProvider.class);
    assertEquals(
        List.of("FakeRecordStoreProvider", "ThrowsOnCreateRecordStoreProvider", "TwinOneRecordStoreProvider",
            "TwinTwoRecordStoreProvider"),
        d.providers().stream().map(p -> p.getClass().getSimpleName()).toList());
    assertEquals(
        List.of(F + "ThrowsInConstructorRecordStoreProvider", F + "NoSuchProvider"),
        d.failures().stream().map(ProviderFailure::providerClass).toList());
    assertEquals(SERVICES, d.failures().get(0).servicesFile());
  }

  @Test
  void withoutAContextClassLoaderTheLibrarysOwnLoaderDiscovers() {
    // Kills ProviderLoader.ofContextClassLoader with `tccl != null` negated: a thread without a
    // context class loader (some containers' worker threads) got a loader of null.
    Thread t = Thread.currentThread();
    ClassLoader before = t.getContextClassLoader();
    t.setContextClassLoader(null);
    try {
      Discovered<PreflightTransportProvider> d = ProviderLoader.ofContextClassLoader().discover(PreflightTransportProvider.class);
      assertTrue(d.providers().stream().anyMatch(p -> p instanceof FakePreflightTransportProvider), d.toString());
    } finally {
      t.setContextClassLoader(before);
    }
  }

  @Test
  void theModulesOwnTestRegistrationsAreHarmlessUntilNamed() throws InterruptedException {
    // src/test/resources/META-INF/services registers "fake" and "broken-create" transports for
    // every test of this module, through the real class path.
    Discovered<PreflightTransportProvider> d =
        ProviderLoader.ofContextClassLoader().discover(PreflightTransportProvider.class);
    ProviderConfig fake = ProviderConfig.of(Map.of("cotenant.preflight.provider", "fake"));
    Selected<PreflightTransportProvider> s = ProviderSelection.selectOne(Spi.PREFLIGHT_TRANSPORT, d, fake);
    assertInstanceOf(FakePreflightTransportProvider.class, s.provider());
    PreflightTransport t = ProviderSelection.create(Spi.PREFLIGHT_TRANSPORT, s, p -> p.create(CONTEXT));
    assertEquals(
        PreflightResult.notRun("fake transport spawns nothing"), t.preflight(ServerDescription.stdio("any", "cmd")));

    ProviderConfig broken = ProviderConfig.of(Map.of("cotenant.preflight.provider", "broken-create"));
    Selected<PreflightTransportProvider> b = ProviderSelection.selectOne(Spi.PREFLIGHT_TRANSPORT, d, broken);
    assertEquals(
        "PreflightTransportProvider \"broken-create\" (" + F + "ThrowsOnCreatePreflightTransportProvider) failed in"
            + " create(): IllegalStateException: no process launcher available. It is registered in"
            + " META-INF/services/dev.cotenant.spi.PreflightTransportProvider",
        assertThrows(
                ProviderLoadingException.class,
                () -> ProviderSelection.create(Spi.PREFLIGHT_TRANSPORT, b, p -> p.create(CONTEXT)))
            .getMessage());
  }

  @Test
  void anExplicitInstanceIsReportedAsPassedToTheBuilder() {
    RecordStoreProvider explicit = new ThrowsOnCreateLambdaFree();
    Selected<RecordStoreProvider> s = Selected.explicit(Spi.RECORD_STORES, explicit);
    assertEquals(Origin.EXPLICIT, s.origin());
    assertEquals(
        "RecordStoreProvider \"explicit\" (" + ThrowsOnCreateLambdaFree.class.getName() + ") failed in create():"
            + " UnsupportedOperationException: nope. It was passed to Cotenant.builder().recordStores(...)",
        assertThrows(
                ProviderLoadingException.class, () -> ProviderSelection.create(Spi.RECORD_STORES, s, p -> p.create(CONTEXT)))
            .getMessage());
  }

  /** A provider passed explicitly whose create() fails. */
  static final class ThrowsOnCreateLambdaFree extends NamedFixture<RecordStores> implements RecordStoreProvider {
    ThrowsOnCreateLambdaFree() {
      super("explicit", () -> {
        throw new UnsupportedOperationException("nope");
      });
    }
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static String capturingStderr(Runnable action) {
    return Stderr.capture(action);
  }
}
