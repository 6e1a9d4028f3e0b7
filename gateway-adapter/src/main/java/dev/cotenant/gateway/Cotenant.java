package dev.cotenant.gateway;

import dev.cotenant.api.Assessor;
import dev.cotenant.api.Evidence;
import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Verdict;
import dev.cotenant.providers.records.RecordsDirectory;
import dev.cotenant.gateway.providers.ProviderDiscovery;
import dev.cotenant.gateway.providers.ProviderSelection;
import dev.cotenant.gateway.providers.ProviderSelection.Selected;
import dev.cotenant.gateway.providers.Spi;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The runtime a host embeds: its providers, selected once, and the assessment of a server from
 * them.
 *
 * <p>The evidence chain and the classifiers are selected and created when the runtime is built,
 * so a broken or ambiguous one fails at start. The record stores, the pre-flight transport and
 * the seeding policy are selected on first use of their accessor: a runtime that only assesses
 * never needs them. A selection error is thrown from that accessor, each time it is called,
 * until it succeeds.
 *
 * <pre>{@code
 * Cotenant cotenant = Cotenant.builder()
 *     .config(Map.of("cotenant.evidence.caller-identity-keys", "acme.caller"))
 *     .build();
 * Verdict v = cotenant.assess(server, Optional.of(handshake), PreflightOutcome.passed(), List.of());
 * }</pre>
 *
 * <p>Thread-safe: immutable after {@link Builder#build()}, apart from the lazily selected
 * providers, which are created at most once.
 */
public final class Cotenant {
  private final ProviderConfig config;
  private final Path recordsDirectory;
  private final ProviderContext context;
  private final List<Selected<ManagedServerClassifier>> classifiers;
  private final List<Selected<EvidenceSource>> sources;
  private final Lazy<RecordStores> recordStores;
  private final Lazy<PreflightTransport> preflightTransport;
  private final Lazy<SeedingPolicy> seedingPolicy;
  private final Lazy<ConcurrencyLimiter> limiter;

  private Cotenant(Builder b) {
    this.config = b.config;
    this.recordsDirectory =
        b.recordsDirectory != null
            ? b.recordsDirectory
            : RecordsDirectory.resolveForThisProcess(config);
    this.context = new ProviderContext(config, recordsDirectory);
    ProviderDiscovery discovery = b.discovery;

    this.classifiers =
        created(
            Spi.CLASSIFIERS,
            ProviderSelection.chain(Spi.CLASSIFIERS, b.classifiers, discovery.discover(ManagedServerClassifierProvider.class), config),
            p -> p.create(context));
    this.sources =
        created(
            Spi.EVIDENCE_SOURCES,
            ProviderSelection.chain(Spi.EVIDENCE_SOURCES, b.sources, discovery.discover(EvidenceSourceProvider.class), config),
            p -> p.create(context));
    this.recordStores = new Lazy<>(Spi.RECORD_STORES, b.recordStores, discovery, config, p -> p.create(context));
    this.preflightTransport =
        new Lazy<>(Spi.PREFLIGHT_TRANSPORT, b.preflightTransport, discovery, config, p -> p.create(context));
    this.seedingPolicy = new Lazy<>(Spi.SEEDING_POLICY, b.seedingPolicy, discovery, config, p -> p.create(context));
    this.limiter = new Lazy<>(Spi.LIMITER, b.limiter, discovery, config, p -> p.create(context));
  }

  /** A builder: classpath discovery, empty configuration, the default records directory. */
  public static Builder builder() {
    return new Builder();
  }

  /** The configuration every provider was given. */
  public ProviderConfig config() {
    return config;
  }

  /** The records directory every provider was given. */
  public Path recordsDirectory() {
    return recordsDirectory;
  }

  /** The classifier names, in chain order. */
  public List<String> classifierNames() {
    return classifiers.stream().map(Selected::name).toList();
  }

  /** The evidence source names, in chain order. */
  public List<String> evidenceSourceNames() {
    return sources.stream().map(Selected::name).toList();
  }

  /**
   * The inferred evidence about one server: first each classifier that says the server is
   * session-bound by construction (a {@code session_bound_by_construction} finding whose detail
   * is the classifier's reason), then every evidence source, in chain order.
   *
   * @throws IllegalStateException naming the classifier or source when one throws or returns
   *     null; evidence is never dropped silently
   */
  public List<Finding> findings(ServerDescription server, Optional<HandshakeFacts> handshake) {
    return findings(new EvidenceInput(server, handshake));
  }

  /**
   * The inferred evidence about one server, as {@link #findings(ServerDescription, Optional)},
   * with everything {@code input} carries: the current launch identity and the concurrency record
   * let {@code registered_shared} and {@code statelessness_probe_passed} speak.
   *
   * @throws IllegalStateException as {@link #findings(ServerDescription, Optional)}
   */
  public List<Finding> findings(EvidenceInput input) {
    Objects.requireNonNull(input, "input");
    ServerDescription server = input.server();
    List<Finding> out = new ArrayList<>();
    for (Selected<ManagedServerClassifier> c : classifiers) {
      Optional<String> reason;
      try {
        reason = c.provider().sessionBoundReason(server);
      } catch (RuntimeException e) {
        throw failed("classifier", c.name(), server, e);
      }
      if (reason == null) {
        throw failed("classifier", c.name(), server, null);
      }
      reason.ifPresent(r -> out.add(Finding.of(c.name(), ReasonCode.SESSION_BOUND_BY_CONSTRUCTION, r)));
    }
    for (Selected<EvidenceSource> s : sources) {
      List<Finding> found;
      try {
        found = s.provider().findings(input);
      } catch (RuntimeException e) {
        throw failed("evidence source", s.name(), server, e);
      }
      if (found == null) {
        throw failed("evidence source", s.name(), server, null);
      }
      out.addAll(found);
    }
    return List.copyOf(out);
  }

  /**
   * Assesses one server with the fixed core ({@link Assessor#assess}).
   *
   * @param server the server
   * @param handshake the handshake snapshot, when one was observed (a pre-flight ran, or the host
   *     supplied its own)
   * @param preflight the pre-flight outcome under the server's current identity
   * @param observations hazards the ledger holds under the server's current identity
   * @throws dev.cotenant.api.EvidenceRejectedException when a source contributed a code outside
   *     the vocabulary; the message names the source
   */
  public Verdict assess(
      ServerDescription server,
      Optional<HandshakeFacts> handshake,
      PreflightOutcome preflight,
      Collection<HazardCode> observations) {
    return assess(new EvidenceInput(server, handshake), preflight, observations);
  }

  /**
   * Assesses one server from everything {@code input} carries (see {@link #findings(EvidenceInput)}).
   *
   * @param input the server, its handshake snapshot, its current ledger identity and its
   *     concurrency record
   * @param preflight the pre-flight outcome under the server's current identity
   * @param observations hazards the ledger holds under the server's current identity
   * @throws dev.cotenant.api.EvidenceRejectedException as
   *     {@link #assess(ServerDescription, Optional, PreflightOutcome, Collection)}
   */
  public Verdict assess(EvidenceInput input, PreflightOutcome preflight, Collection<HazardCode> observations) {
    return Assessor.assess(
        new Evidence(List.copyOf(observations), findings(input), preflight, input.handshake().isPresent()));
  }

  /**
   * The record stores, selected and opened on first call.
   *
   * @throws dev.cotenant.gateway.providers.ProviderLoadingException when none can be selected or
   *     the provider fails in {@code create()}
   */
  public RecordStores recordStores() {
    return recordStores.get();
  }

  /**
   * The pre-flight transport, selected on first call.
   *
   * @throws dev.cotenant.gateway.providers.ProviderLoadingException as {@link #recordStores()}
   */
  public PreflightTransport preflightTransport() {
    return preflightTransport.get();
  }

  /**
   * The seeding policy, selected on first call.
   *
   * @throws dev.cotenant.gateway.providers.ProviderLoadingException as {@link #recordStores()}
   */
  public SeedingPolicy seedingPolicy() {
    return seedingPolicy.get();
  }

  /**
   * The concurrency limiter that enforces {@code maxConcurrent} (DESIGN §7), selected on first
   * call ({@value Spi#LIMITER_KEY}; default {@code semaphore}, in-process).
   *
   * @throws dev.cotenant.gateway.providers.ProviderLoadingException as {@link #recordStores()}
   */
  public ConcurrencyLimiter limiter() {
    return limiter.get();
  }

  private static IllegalStateException failed(String what, String name, ServerDescription server, @Nullable RuntimeException e) {
    String msg =
        what + " \"" + LogSafe.escape(name) + "\" failed on server \"" + LogSafe.escape(server.name()) + "\": "
            + (e == null ? "it returned null" : e.getClass().getSimpleName() + ": " + LogSafe.escape(String.valueOf(e.getMessage())));
    return e == null ? new IllegalStateException(msg) : new IllegalStateException(msg, e);
  }

  private static <P, R> List<Selected<R>> created(Spi<P> spi, List<Selected<P>> chain, Function<P, R> factory) {
    List<Selected<R>> out = new ArrayList<>();
    for (Selected<P> s : chain) {
      out.add(new Selected<>(ProviderSelection.create(spi, s, factory), s.name(), s.className(), s.origin()));
    }
    return List.copyOf(out);
  }

  /** Selects and creates a single provider on first use. */
  private static final class Lazy<R> {
    private final Object lock = new Object();
    private final java.util.function.Supplier<R> make;
    private @Nullable R value;

    <P> Lazy(Spi<P> spi, @Nullable P explicit, ProviderDiscovery discovery, ProviderConfig config, Function<P, R> factory) {
      this.make =
          () -> {
            Selected<P> s =
                explicit != null
                    ? Selected.explicit(spi, explicit)
                    : ProviderSelection.selectOne(spi, discovery.discover(spi.type()), config);
            return ProviderSelection.create(spi, s, factory);
          };
    }

    R get() {
      synchronized (lock) {
        if (value == null) {
          value = make.get();
        }
        return value;
      }
    }
  }

  /**
   * Builds a {@link Cotenant}. Every SPI accepts explicit instances, so a host's test can replace
   * any provider with a fake without touching the classpath. Not thread-safe; {@link #build()}
   * may be called more than once.
   */
  public static final class Builder {
    private ProviderConfig config = ProviderConfig.empty();
    private @Nullable Path recordsDirectory;
    private ProviderDiscovery discovery = ProviderDiscovery.classpath();
    private final List<EvidenceSourceProvider> sources = new ArrayList<>();
    private final List<ManagedServerClassifierProvider> classifiers = new ArrayList<>();
    private @Nullable RecordStoreProvider recordStores;
    private @Nullable PreflightTransportProvider preflightTransport;
    private @Nullable SeedingPolicyProvider seedingPolicy;
    private @Nullable ConcurrencyLimiterProvider limiter;

    private Builder() {}

    /** Configuration as a flat map (copied), replacing any set before. */
    public Builder config(Map<String, String> values) {
      return config(ProviderConfig.of(values));
    }

    /** Configuration, replacing any set before. */
    public Builder config(ProviderConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** The records directory; when unset it is resolved by {@link RecordsDirectory#resolve}. */
    public Builder recordsDirectory(Path directory) {
      this.recordsDirectory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** Adds an evidence source; it replaces a discovered one of the same name. */
    public Builder evidenceSource(EvidenceSourceProvider provider) {
      sources.add(Objects.requireNonNull(provider, "provider"));
      return this;
    }

    /** Adds a managed-server classifier; it replaces a discovered one of the same name. */
    public Builder classifier(ManagedServerClassifierProvider provider) {
      classifiers.add(Objects.requireNonNull(provider, "provider"));
      return this;
    }

    /** Uses this record store provider; configuration and discovery are not consulted for it. */
    public Builder recordStores(RecordStoreProvider provider) {
      this.recordStores = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Uses this pre-flight transport provider; configuration and discovery are not consulted for it. */
    public Builder preflightTransport(PreflightTransportProvider provider) {
      this.preflightTransport = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Uses this seeding policy provider; configuration and discovery are not consulted for it. */
    public Builder seedingPolicy(SeedingPolicyProvider provider) {
      this.seedingPolicy = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Uses this concurrency limiter provider; configuration and discovery are not consulted for it. */
    public Builder limiter(ConcurrencyLimiterProvider provider) {
      this.limiter = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Skips classpath discovery: only the providers passed to this builder are used. */
    public Builder withoutClasspathDiscovery() {
      return discovery(ProviderDiscovery.none());
    }

    /** Discovers providers through {@code discovery} instead of the classpath. */
    public Builder discovery(ProviderDiscovery discovery) {
      this.discovery = Objects.requireNonNull(discovery, "discovery");
      return this;
    }

    /**
     * Selects and creates the evidence chain and the classifiers; the single-provider SPIs are
     * selected on first use.
     *
     * @throws dev.cotenant.gateway.providers.ProviderLoadingException when a chain member cannot
     *     be loaded, a name is taken twice, or a provider fails in {@code create()}
     */
    public Cotenant build() {
      return new Cotenant(this);
    }

    Builder copy() {
      Builder b = new Builder();
      b.config = config;
      b.recordsDirectory = recordsDirectory;
      b.discovery = discovery;
      b.sources.addAll(sources);
      b.classifiers.addAll(classifiers);
      b.recordStores = recordStores;
      b.preflightTransport = preflightTransport;
      b.seedingPolicy = seedingPolicy;
      b.limiter = limiter;
      return b;
    }

    List<EvidenceSourceProvider> sources() {
      return List.copyOf(sources);
    }

    List<ManagedServerClassifierProvider> classifiers() {
      return List.copyOf(classifiers);
    }

    Optional<RecordStoreProvider> recordStoresProvider() {
      return Optional.ofNullable(recordStores);
    }

    Optional<PreflightTransportProvider> preflightTransportProvider() {
      return Optional.ofNullable(preflightTransport);
    }

    Optional<SeedingPolicyProvider> seedingPolicyProvider() {
      return Optional.ofNullable(seedingPolicy);
    }

    Optional<ConcurrencyLimiterProvider> limiterProvider() {
      return Optional.ofNullable(limiter);
    }

    Builder replaceLimiter(Optional<ConcurrencyLimiterProvider> provider) {
      limiter = provider.orElse(null);
      return this;
    }

    Builder replaceProviders(
        Collection<EvidenceSourceProvider> newSources,
        Collection<ManagedServerClassifierProvider> newClassifiers,
        Optional<RecordStoreProvider> records,
        Optional<PreflightTransportProvider> transport,
        Optional<SeedingPolicyProvider> seeding) {
      sources.clear();
      sources.addAll(newSources);
      classifiers.clear();
      classifiers.addAll(newClassifiers);
      recordStores = records.orElse(null);
      preflightTransport = transport.orElse(null);
      seedingPolicy = seeding.orElse(null);
      return this;
    }
  }
}
