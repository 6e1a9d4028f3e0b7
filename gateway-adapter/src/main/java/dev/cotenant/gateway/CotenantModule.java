package dev.cotenant.gateway;

import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Provides;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import com.google.inject.util.Types;
import dev.cotenant.gateway.providers.Spi;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.ProviderConfig;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Binds a singleton {@link Cotenant} for Guice hosts.
 *
 * <p>The module takes the same settings and explicit provider instances as
 * {@link Cotenant#builder()}. For every SPI of {@link Spi#ALL} it also exposes a binding, so
 * another module may contribute providers the Guice way: a {@link Multibinder} set for a chain
 * (evidence sources, classifiers), an {@link OptionalBinder} for a single-provider SPI:
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
    for (Spi<?, ?> spi : Spi.ALL) {
      bind(spi);
    }
  }

  private <T extends NamedProvider> void bind(Spi<T, ?> spi) {
    List<T> given = template.explicit(spi);
    if (spi.isChain()) {
      Multibinder<T> set = Multibinder.newSetBinder(binder(), spi.type());
      given.forEach(p -> set.addBinding().toInstance(p));
    } else {
      OptionalBinder<T> one = OptionalBinder.newOptionalBinder(binder(), spi.type());
      if (!given.isEmpty()) {
        one.setBinding().toInstance(given.get(given.size() - 1));
      }
    }
  }

  @Provides
  @Singleton
  Cotenant cotenant(Injector injector) {
    Cotenant.Builder b = template.copy();
    for (Spi<?, ?> spi : Spi.ALL) {
      b.replace(spi, bound(injector, spi));
    }
    return b.build();
  }

  @SuppressWarnings("unchecked")
  private static Collection<? extends NamedProvider> bound(Injector injector, Spi<?, ?> spi) {
    if (spi.isChain()) {
      return (Collection<? extends NamedProvider>) injector.getInstance(Key.get(Types.setOf(spi.type())));
    }
    Optional<? extends NamedProvider> one =
        (Optional<? extends NamedProvider>) injector.getInstance(Key.get(Types.newParameterizedType(Optional.class, spi.type())));
    return one.map(List::of).orElse(List.of());
  }

  @Provides
  ProviderConfig providerConfig(Cotenant cotenant) {
    return cotenant.config();
  }
}
