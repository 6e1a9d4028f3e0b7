package dev.cotenant.gateway;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.SeedingPolicyProvider;
import jakarta.inject.Singleton;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Binds a singleton {@link Cotenant} for Guice hosts.
 *
 * <p>The module takes the same settings and explicit provider instances as
 * {@link Cotenant#builder()}. It also exposes the provider bindings, so another module may
 * contribute providers the Guice way:
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new CotenantModule(Cotenant.builder().config(Map.of(...))),
 *     new AbstractModule() {
 *       protected void configure() {
 *         Multibinder.newSetBinder(binder(), EvidenceSourceProvider.class)
 *             .addBinding().to(MyEvidenceSourceProvider.class);
 *         OptionalBinder.newOptionalBinder(binder(), RecordStoreProvider.class)
 *             .setBinding().toInstance(new InMemoryRecordStoreProvider());
 *       }
 *     });
 * Cotenant cotenant = injector.getInstance(Cotenant.class);
 * }</pre>
 *
 * <p>Contributed chain members join the discovered ones (replacing one of the same name); a
 * bound single provider wins over configuration and discovery. Bind a single provider either in
 * the builder or with {@code OptionalBinder.setBinding()}, not both: Guice refuses two.
 */
public final class CotenantModule extends AbstractModule {
  private final Cotenant.Builder template;

  /** Classpath discovery, empty configuration, the default records directory. */
  public CotenantModule() {
    this(Cotenant.builder());
  }

  /** The settings and explicit providers of {@code builder} (copied now; later changes are not seen). */
  public CotenantModule(Cotenant.Builder builder) {
    this.template = Objects.requireNonNull(builder, "builder").copy();
  }

  @Override
  protected void configure() {
    Multibinder<EvidenceSourceProvider> sources = Multibinder.newSetBinder(binder(), EvidenceSourceProvider.class);
    template.sources().forEach(p -> sources.addBinding().toInstance(p));
    Multibinder<ManagedServerClassifierProvider> classifiers =
        Multibinder.newSetBinder(binder(), ManagedServerClassifierProvider.class);
    template.classifiers().forEach(p -> classifiers.addBinding().toInstance(p));
    OptionalBinder<RecordStoreProvider> records = OptionalBinder.newOptionalBinder(binder(), RecordStoreProvider.class);
    template.recordStoresProvider().ifPresent(p -> records.setBinding().toInstance(p));
    OptionalBinder<PreflightTransportProvider> transport =
        OptionalBinder.newOptionalBinder(binder(), PreflightTransportProvider.class);
    template.preflightTransportProvider().ifPresent(p -> transport.setBinding().toInstance(p));
    OptionalBinder<SeedingPolicyProvider> seeding = OptionalBinder.newOptionalBinder(binder(), SeedingPolicyProvider.class);
    template.seedingPolicyProvider().ifPresent(p -> seeding.setBinding().toInstance(p));
    OptionalBinder<ConcurrencyLimiterProvider> limiter =
        OptionalBinder.newOptionalBinder(binder(), ConcurrencyLimiterProvider.class);
    template.limiterProvider().ifPresent(p -> limiter.setBinding().toInstance(p));
  }

  @Provides
  @Singleton
  Cotenant cotenant(
      Set<EvidenceSourceProvider> sources,
      Set<ManagedServerClassifierProvider> classifiers,
      Optional<RecordStoreProvider> records,
      Optional<PreflightTransportProvider> transport,
      Optional<SeedingPolicyProvider> seeding,
      Optional<ConcurrencyLimiterProvider> limiter) {
    return template.copy().replaceProviders(sources, classifiers, records, transport, seeding).replaceLimiter(limiter).build();
  }

  @Provides
  ProviderConfig providerConfig(Cotenant cotenant) {
    return cotenant.config();
  }
}
