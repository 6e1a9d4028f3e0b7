package dev.cotenant.gateway.providers;

import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.SeedingPolicyProvider;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.SessionTransportProvider;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SessionTransport;
import java.util.List;
import java.util.function.BiFunction;
import java.util.Objects;
import java.util.Optional;

/**
 * One extension point as the loader sees it: its interface, whether it is a chain, and the
 * configuration that selects or removes providers. The constants are Cotenant's SPIs and
 * {@link #ALL} lists them: adding an SPI is adding a constant here (and its interface in
 * {@code spi}); the builder ({@code Cotenant.Builder#provider}), the Guice module and the runtime's
 * accessor ({@code Cotenant#provider}) are generic over this list.
 *
 * @param <T> the provider interface
 * @param <R> what a provider creates
 */
public final class Spi<T extends NamedProvider, R> {
  /** Evidence sources: a chain; {@value #EVIDENCE_DISABLED_KEY} removes members by name. */
  public static final Spi<EvidenceSourceProvider, EvidenceSource> EVIDENCE_SOURCES =
      chain(EvidenceSourceProvider.class, EvidenceSourceProvider::create, Optional.of(Spi.EVIDENCE_DISABLED_KEY), "evidenceSource");

  /** Managed-server classifiers: a chain; none can be disabled by configuration. */
  public static final Spi<ManagedServerClassifierProvider, ManagedServerClassifier> CLASSIFIERS =
      chain(ManagedServerClassifierProvider.class, ManagedServerClassifierProvider::create, Optional.empty(), "classifier");

  /** Record stores: exactly one, chosen by {@value #RECORDS_KEY}; the default is {@code file}. */
  public static final Spi<RecordStoreProvider, RecordStores> RECORD_STORES =
      single(RecordStoreProvider.class, RecordStoreProvider::create, Spi.RECORDS_KEY, "file", "recordStores");

  /** The session transport: exactly one, chosen by {@value #SESSIONS_KEY}; the default is {@code stdio}. */
  public static final Spi<SessionTransportProvider, SessionTransport> SESSION_TRANSPORT =
      single(SessionTransportProvider.class, SessionTransportProvider::create, Spi.SESSIONS_KEY, "stdio", "sessionTransport");

  /** The pre-flight transport: exactly one, chosen by {@value #PREFLIGHT_KEY}; the default is {@code stdio}. */
  public static final Spi<PreflightTransportProvider, PreflightTransport> PREFLIGHT_TRANSPORT =
      single(PreflightTransportProvider.class, PreflightTransportProvider::create, Spi.PREFLIGHT_KEY, "stdio", "preflightTransport");

  /** The seeding policy: exactly one, chosen by {@value #SEEDING_KEY}; the default is {@code default}. */
  public static final Spi<SeedingPolicyProvider, SeedingPolicy> SEEDING_POLICY =
      single(SeedingPolicyProvider.class, SeedingPolicyProvider::create, Spi.SEEDING_KEY, "default", "seedingPolicy");

  /** The concurrency limiter: exactly one, chosen by {@value #LIMITER_KEY}; the default is {@code semaphore}. */
  public static final Spi<ConcurrencyLimiterProvider, ConcurrencyLimiter> LIMITER =
      single(ConcurrencyLimiterProvider.class, ConcurrencyLimiterProvider::create, Spi.LIMITER_KEY, "semaphore", "limiter");

  /** Every SPI, chains first. */
  public static final List<Spi<?, ?>> ALL =
      List.of(EVIDENCE_SOURCES, CLASSIFIERS, RECORD_STORES, SESSION_TRANSPORT, PREFLIGHT_TRANSPORT, SEEDING_POLICY, LIMITER);

  /** Names the session transport provider to use. */
  public static final String SESSIONS_KEY = "cotenant.sessions.provider";

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
  private final BiFunction<T, ProviderContext, R> factory;

  private Spi(
      Class<T> type,
      boolean chain,
      Optional<String> selectionKey,
      Optional<String> defaultName,
      Optional<String> disabledKey,
      String builderMethod,
      BiFunction<T, ProviderContext, R> factory) {
    this.type = type;
    this.chain = chain;
    this.selectionKey = selectionKey;
    this.defaultName = defaultName;
    this.disabledKey = disabledKey;
    this.builderMethod = builderMethod;
    this.factory = factory;
  }

  private static <T extends NamedProvider, R> Spi<T, R> chain(
      Class<T> type, BiFunction<T, ProviderContext, R> factory, Optional<String> disabledKey, String builderMethod) {
    return new Spi<>(type, true, Optional.empty(), Optional.empty(), disabledKey, builderMethod, factory);
  }

  private static <T extends NamedProvider, R> Spi<T, R> single(
      Class<T> type, BiFunction<T, ProviderContext, R> factory, String key, String defaultName, String builderMethod) {
    return new Spi<>(type, false, Optional.of(key), Optional.of(defaultName), Optional.empty(), builderMethod, factory);
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
    return Objects.requireNonNull(provider.name(), "name()");
  }

  /** {@code provider.order()} for a chain, 0 for a single-provider SPI. */
  public int orderOf(T provider) {
    return chain ? provider.order() : 0;
  }

  /** Calls the provider's factory method. */
  public R create(T provider, ProviderContext context) {
    return factory.apply(provider, context);
  }

  /** {@code provider} as this SPI's type. */
  public T cast(Object provider) {
    return type.cast(provider);
  }

  @Override
  public String toString() {
    return simpleName();
  }
}
