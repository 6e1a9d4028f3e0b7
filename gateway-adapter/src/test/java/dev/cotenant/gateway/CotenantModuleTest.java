package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.gateway.providers.fixtures.FakeRecordStoreProvider;
import dev.cotenant.gateway.providers.fixtures.FakeSeedingPolicyProvider;
import dev.cotenant.testkit.records.InMemoryRecordStores;
import dev.cotenant.gateway.providers.fixtures.ListedClassifierProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CotenantModuleTest {
  @Test
  void bindsASingletonRuntimeWithTheBuildersExplicitProviders() {
    Injector injector =
        Guice.createInjector(
            new CotenantModule(
                Cotenant.builder()
                    .config(Map.of("cotenant.evidence.disabled", "no_tools_listed"))
                    .recordsDirectory(Path.of("records"))
                    .recordStores(new FakeRecordStoreProvider())
                    .classifier(new ListedClassifierProvider())));
    Cotenant c = injector.getInstance(Cotenant.class);
    assertSame(c, injector.getInstance(Cotenant.class));
    assertEquals(List.of("empty", "listed"), c.classifierNames());
    assertTrue(c.recordStores() instanceof InMemoryRecordStores);
    assertEquals("no_tools_listed", injector.getInstance(ProviderConfig.class).get("cotenant.evidence.disabled").orElseThrow());
    assertEquals(
        Strength.DISQUALIFIED,
        c.assess(ServerDescription.stdio("host-desktop", "d"), Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of())
            .strength());
  }

  @Test
  void anotherModuleMayContributeProvidersTheGuiceWay() {
    RecordStores stores = new InMemoryRecordStores();
    SeedingPolicy policy = new FakeSeedingPolicyProvider().create(null);
    SeedingPolicyProvider seeding =
        new SeedingPolicyProvider() {
          @Override
          public String name() {
            return "fake";
          }

          @Override
          public SeedingPolicy create(dev.cotenant.spi.ProviderContext context) {
            return policy;
          }
        };
    Injector injector =
        Guice.createInjector(
            new CotenantModule(Cotenant.builder().withoutClasspathDiscovery().seedingPolicy(seeding)),
            new AbstractModule() {
              @Override
              protected void configure() {
                Multibinder.newSetBinder(binder(), ManagedServerClassifierProvider.class)
                    .addBinding()
                    .to(ListedClassifierProvider.class);
                OptionalBinder.newOptionalBinder(binder(), RecordStoreProvider.class)
                    .setBinding()
                    .toInstance(
                        new FakeRecordStoreProvider() {
                          @Override
                          public RecordStores create(dev.cotenant.spi.ProviderContext context) {
                            return stores;
                          }
                        });
              }
            });
    Cotenant c = injector.getInstance(Cotenant.class);
    assertEquals(List.of("listed"), c.classifierNames());
    assertEquals(List.of(), c.evidenceSourceNames());
    assertSame(stores, c.recordStores());
    assertSame(policy, c.seedingPolicy());
    // The classifier the other module bound is the one the runtime's assessment consults.
    assertEquals(
        Strength.DISQUALIFIED,
        c.assess(ServerDescription.stdio("host-desktop", "d"), Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of())
            .strength());
    assertNotEquals(
        Strength.DISQUALIFIED,
        c.assess(ServerDescription.stdio("elsewhere", "d"), Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of())
            .strength());
  }
}
