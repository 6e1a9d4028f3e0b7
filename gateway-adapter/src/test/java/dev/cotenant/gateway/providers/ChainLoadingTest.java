package dev.cotenant.gateway.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.gateway.providers.ProviderSelection.Origin;
import dev.cotenant.gateway.providers.ProviderSelection.Selected;
import dev.cotenant.gateway.providers.fixtures.ListedClassifierProvider;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Chains (evidence sources, classifiers) through the real {@link java.util.ServiceLoader}. */
class ChainLoadingTest {
  private static final String F = "dev.cotenant.gateway.providers.fixtures.";

  private static List<Selected<EvidenceSourceProvider>> sources(
      String scenario, List<EvidenceSourceProvider> explicit, Map<String, String> config) {
    return ProviderSelection.chain(
        Spi.EVIDENCE_SOURCES,
        explicit,
        ScopedServices.loader(scenario).discover(EvidenceSourceProvider.class),
        ProviderConfig.of(config));
  }

  private static List<String> names(List<? extends Selected<?>> chain) {
    return chain.stream().map(Selected::name).toList();
  }

  /** A minimal explicit source. */
  record Named(String name, int order) implements EvidenceSourceProvider {
    @Override
    public EvidenceSource create(ProviderContext context) {
      return EvidenceSource.silent();
    }
  }

  @Test
  void orderedByOrderThenName() {
    // zz_early has order -5, fake_notes 10; explicit ones join with their own orders.
    List<Selected<EvidenceSourceProvider>> chain =
        sources("chain", List.of(new Named("b_zero", 0), new Named("a_zero", 0)), Map.of());
    assertEquals(List.of("zz_early", "a_zero", "b_zero", "fake_notes"), names(chain));
    assertEquals(Origin.DISCOVERED, chain.get(0).origin());
    assertEquals(Origin.EXPLICIT, chain.get(1).origin());
  }

  @Test
  void disabledNamesAreRemovedAndUnknownOnesIgnored() {
    assertEquals(
        List.of("fake_notes"),
        names(sources("chain", List.of(), Map.of(Spi.EVIDENCE_DISABLED_KEY, "zz_early, not_there"))));
  }

  @Test
  void anExplicitInstanceReplacesADiscoveredOneOfTheSameName() {
    Named replacement = new Named("fake_notes", 99);
    List<Selected<EvidenceSourceProvider>> chain = sources("chain", List.of(replacement), Map.of());
    assertEquals(List.of("zz_early", "fake_notes"), names(chain));
    assertSame(replacement, chain.get(1).provider());
  }

  @Test
  void aRegistrationThatFailsToLoadStopsTheChain() {
    ProviderLoadingException e =
        assertThrows(ProviderLoadingException.class, () -> sources("chain-broken", List.of(), Map.of()));
    assertEquals(
        "cannot build the EvidenceSourceProvider chain: registered providers failed to load: [" + F
            + "ThrowsInConstructorEvidenceSourceProvider (could not be instantiated: IllegalStateException: evidence"
            + " source refuses to start); " + F + "NoSuchProvider (not found)]. A chain never runs without one of its"
            + " members, since a missing one could make a verdict stronger than its evidence; fix or remove the"
            + " registration in META-INF/services/dev.cotenant.spi.EvidenceSourceProvider",
        e.getMessage());
  }

  @Test
  void disablingCannotHideABrokenRegistration() {
    assertThrows(
        ProviderLoadingException.class,
        () -> sources("chain-broken", List.of(), Map.of(Spi.EVIDENCE_DISABLED_KEY, "never_seen")));
  }

  @Test
  void duplicateNamesInAChainFailFastNamingBothClasses() {
    assertEquals(
        "2 EvidenceSourceProviders in META-INF/services/dev.cotenant.spi.EvidenceSourceProvider are named \"twin\": "
            + F + "TwinOneEvidenceSourceProvider, " + F + "TwinTwoEvidenceSourceProvider; a name must be unique"
            + " within an SPI. Remove all but one of them",
        assertThrows(ProviderLoadingException.class, () -> sources("chain-twins", List.of(), Map.of())).getMessage());
  }

  @Test
  void duplicateExplicitNamesFailFast() {
    String n = Named.class.getName();
    assertEquals(
        "2 EvidenceSourceProviders passed to Cotenant.builder().evidenceSource(...) are named \"dup\": " + n + ", " + n
            + "; a name must be unique within an SPI. Remove all but one of them",
        assertThrows(
                ProviderLoadingException.class,
                () -> sources("chain", List.of(new Named("dup", 0), new Named("dup", 1)), Map.of()))
            .getMessage());
  }

  @Test
  void classifiersFormAChainToo() {
    List<Selected<ManagedServerClassifierProvider>> chain =
        ProviderSelection.chain(
            Spi.CLASSIFIERS,
            List.of(),
            ScopedServices.loader("chain").discover(ManagedServerClassifierProvider.class),
            ProviderConfig.empty());
    assertEquals(List.of("listed"), names(chain));
    assertEquals(ListedClassifierProvider.class, chain.get(0).provider().getClass());
  }

  @Test
  void singleAndChainSelectionRefuseTheOtherKind() {
    Discovered<EvidenceSourceProvider> none = new Discovered<>(EvidenceSourceProvider.class, List.of(), List.of());
    assertThrows(
        IllegalArgumentException.class,
        () -> ProviderSelection.selectOne(Spi.EVIDENCE_SOURCES, none, ProviderConfig.empty()));
  }
}
