package dev.cotenant.gateway.providers;

import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.SeedingPolicyProvider;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * One extension point as the loader sees it: its interface, how a provider is named and
 * ordered, and the configuration that selects or removes providers. The six constants are
 * Cotenant's SPIs; the SPI interfaces share no supertype, so this descriptor supplies
 * {@code name()} and {@code order()} generically.
 *
 * @param <T> the provider interface
 */
public final class Spi<T> {
  /** Evidence sources: a chain; {@value #EVIDENCE_DISABLED_KEY} removes members by name. */
  public static final Spi<EvidenceSourceProvider> EVIDENCE_SOURCES =
      new Spi<>(
          EvidenceSourceProvider.class, true, Optional.empty(), Optional.empty(),
          Optional.of(Spi.EVIDENCE_DISABLED_KEY), "evidenceSource",
          EvidenceSourceProvider::name, EvidenceSourceProvider::order);

  /** Managed-server classifiers: a chain; none can be disabled by configuration. */
  public static final Spi<ManagedServerClassifierProvider> CLASSIFIERS =
      new Spi<>(
          ManagedServerClassifierProvider.class, true, Optional.empty(), Optional.empty(), Optional.empty(),
          "classifier", ManagedServerClassifierProvider::name, ManagedServerClassifierProvider::order);

  /** Record stores: exactly one, chosen by {@value #RECORDS_KEY}; the default is {@code file}. */
  public static final Spi<RecordStoreProvider> RECORD_STORES =
      new Spi<>(
          RecordStoreProvider.class, false, Optional.of(Spi.RECORDS_KEY), Optional.of("file"), Optional.empty(),
          "recordStores", RecordStoreProvider::name, p -> 0);

  /** The pre-flight transport: exactly one, chosen by {@value #PREFLIGHT_KEY}; the default is {@code stdio}. */
  public static final Spi<PreflightTransportProvider> PREFLIGHT_TRANSPORT =
      new Spi<>(
          PreflightTransportProvider.class, false, Optional.of(Spi.PREFLIGHT_KEY), Optional.of("stdio"),
          Optional.empty(), "preflightTransport", PreflightTransportProvider::name, p -> 0);

  /** The seeding policy: exactly one, chosen by {@value #SEEDING_KEY}; the default is {@code default}. */
  public static final Spi<SeedingPolicyProvider> SEEDING_POLICY =
      new Spi<>(
          SeedingPolicyProvider.class, false, Optional.of(Spi.SEEDING_KEY), Optional.of("default"), Optional.empty(),
          "seedingPolicy", SeedingPolicyProvider::name, p -> 0);

  /** The concurrency limiter: exactly one, chosen by {@value #LIMITER_KEY}; the default is {@code semaphore}. */
  public static final Spi<ConcurrencyLimiterProvider> LIMITER =
      new Spi<>(
          ConcurrencyLimiterProvider.class, false, Optional.of(Spi.LIMITER_KEY), Optional.of("semaphore"),
          Optional.empty(), "limiter", ConcurrencyLimiterProvider::name, p -> 0);

  /** Names the concurrency limiter provider to use. */
  public static final String LIMITER_KEY = "cotenant.limiter.provider";

  /** Names the record store provider to use. */
  public static final String RECORDS_KEY = "cotenant.records.provider";

  /** Names the pre-flight transport provider to use. */
  public static final String PREFLIGHT_KEY = "cotenant.preflight.provider";

  /** Names the seeding policy provider to use. */
  public static final String SEEDING_KEY = "cotenant.seeding.provider";

  /** Comma-separated evidence source names to leave out of the chain. */
  public static final String EVIDENCE_DISABLED_KEY = "cotenant.evidence.disabled";

  private final Class<T> type;
  private final boolean chain;
  private final Optional<String> selectionKey;
  private final Optional<String> defaultName;
  private final Optional<String> disabledKey;
  private final String builderMethod;
  private final Function<T, String> name;
  private final ToIntFunction<T> order;

  private Spi(
      Class<T> type,
      boolean chain,
      Optional<String> selectionKey,
      Optional<String> defaultName,
      Optional<String> disabledKey,
      String builderMethod,
      Function<T, String> name,
      ToIntFunction<T> order) {
    this.type = type;
    this.chain = chain;
    this.selectionKey = selectionKey;
    this.defaultName = defaultName;
    this.disabledKey = disabledKey;
    this.builderMethod = builderMethod;
    this.name = name;
    this.order = order;
  }

  /** The provider interface. */
  public Class<T> type() {
    return type;
  }

  /** The interface's simple name, as messages use it. */
  public String simpleName() {
    return type.getSimpleName();
  }

  /** True for a chain (every provider runs); false when exactly one is selected. */
  public boolean isChain() {
    return chain;
  }

  /** The configuration key naming the one provider to use; empty for a chain. */
  public Optional<String> selectionKey() {
    return selectionKey;
  }

  /** The name chosen when several are discovered and none is configured; empty for a chain. */
  public Optional<String> defaultName() {
    return defaultName;
  }

  /** The configuration key listing providers to leave out of a chain, if the SPI has one. */
  public Optional<String> disabledKey() {
    return disabledKey;
  }

  /** The {@code Cotenant.Builder} method that accepts an instance. */
  public String builderMethod() {
    return builderMethod;
  }

  /** {@code provider.name()}. */
  public String nameOf(T provider) {
    return Objects.requireNonNull(name.apply(provider), "name()");
  }

  /** {@code provider.order()}, or 0 for a single-provider SPI. */
  public int orderOf(T provider) {
    return order.applyAsInt(provider);
  }

  @Override
  public String toString() {
    return simpleName();
  }
}
