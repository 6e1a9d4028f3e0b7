package dev.cotenant.gateway;

import dev.cotenant.api.Assessor;
import dev.cotenant.api.Evidence;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.evaluation.Evaluator;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.gateway.sharing.ConcurrencyLimits;
import dev.cotenant.gateway.probe.Statelessness;
import dev.cotenant.gateway.probe.StatelessnessProbe;
import dev.cotenant.gateway.probe.SurfaceProbe;
import dev.cotenant.gateway.sandbox.PidNamespace;
import dev.cotenant.gateway.sandbox.Sandbox;
import dev.cotenant.gateway.mux.MuxSettings;
import dev.cotenant.gateway.pool.PoolSettings;
import dev.cotenant.gateway.sharing.Sharing;
import dev.cotenant.gateway.sharing.SharingSettings;
import dev.cotenant.gateway.providers.EvidenceChain;
import dev.cotenant.gateway.providers.ProviderDiscovery;
import dev.cotenant.gateway.providers.ProviderSelection;
import dev.cotenant.gateway.providers.ProviderSelection.Selected;
import dev.cotenant.gateway.providers.Spi;
import dev.cotenant.gateway.records.RecordsDirectory;
import dev.cotenant.gateway.rows.LoadedState;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.rows.RowBuilder;
import dev.cotenant.gateway.rows.RowLoader;
import dev.cotenant.gateway.seeding.Seeder;
import dev.cotenant.gateway.stub.BulkStub;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionTransportProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The runtime a host embeds, and its ONE assembly point: the providers, selected once, and
 * everything a host (or the CLI, or the daemon) needs from them — verdicts, rows for a list of
 * servers, measure passes, the statelessness probe and registration, seeding, the bulk stub
 * action and the current launch identity of a server. Every surface goes through this class, so
 * the same records give the same rows everywhere.
 *
 * <p>The evidence chain and the classifiers are selected and created when the runtime is built,
 * so a broken or ambiguous one fails at start. Every single-provider SPI ({@link Spi#ALL}: record
 * stores, session transport, pre-flight transport, seeding policy, limiter) is selected on first
 * use: a runtime that only assesses never needs them. A selection error is thrown from that
 * accessor, each time it is called, until it succeeds.
 *
 * <pre>{@code
 * Cotenant cotenant = Cotenant.builder()
 *     .config(Map.of("cotenant.evidence.caller-identity-keys", "acme.caller"))
 *     .build();
 * List<Row> rows = cotenant.rows(servers);            // one read of the records, then no IO
 * }</pre>
 *
 * <p>Thread-safe: immutable after {@link Builder#build()}, apart from the lazily selected
 * providers, which are created at most once.
 */
public final class Cotenant {
  private final ProviderConfig config;
  private final Path recordsDirectory;
  private final ProviderContext context;
  private final ExecutionIdentities identities;
  private final Sandbox sandbox;
  private final PidNamespace backendNamespace;
  private final EvidenceChain evidence;
  private final Map<Spi<?, ?>, Lazy<?>> singles = new LinkedHashMap<>();

  private Cotenant(Builder b) {
    this.config = b.config;
    this.recordsDirectory =
        b.recordsDirectory != null ? b.recordsDirectory : RecordsDirectory.resolve(config, b.environment, RecordsDirectory.userHome(b.environment));
    this.identities = ExecutionIdentities.fromConfig(config, b.environment);
    this.sandbox = Sandbox.fromConfig(config, b.environment, java.util.Optional.of(recordsDirectory));
    this.backendNamespace = PidNamespace.fromConfig(config, b.environment);
    // A provider that starts servers (the pre-flight) starts them in the probes' sandbox.
    this.context = new ProviderContext(config, recordsDirectory, this::probeSessionTransport);
    ProviderDiscovery discovery = b.discovery;
    this.evidence = EvidenceChain.select(b.explicit(Spi.CLASSIFIERS), b.explicit(Spi.EVIDENCE_SOURCES), discovery, context);
    ProviderContext bare = new ProviderContext(config, recordsDirectory);
    for (Spi<?, ?> spi : Spi.ALL) {
      if (!spi.isChain()) {
        singles.put(spi, lazy(spi, b, discovery, spi == Spi.SESSION_TRANSPORT ? bare : context));
      }
    }
  }

  private static <T extends NamedProvider, R> Lazy<R> lazy(
      Spi<T, R> spi, Builder b, ProviderDiscovery discovery, ProviderContext context) {
    List<T> explicit = b.explicit(spi);
    return new Lazy<>(() -> {
      Selected<T> s =
          explicit.isEmpty()
              ? ProviderSelection.selectOne(spi, discovery.discover(spi.type()), context.config())
              : Selected.explicit(spi, explicit.get(explicit.size() - 1));
      return ProviderSelection.create(spi, s, p -> spi.create(p, context));
    });
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
    return evidence.classifierNames();
  }

  /** The evidence source names, in chain order. */
  public List<String> evidenceSourceNames() {
    return evidence.evidenceSourceNames();
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
    return evidence.findings(input);
  }

  /**
   * Assesses one server with the fixed core ({@link Assessor#assess}), from records read
   * completely; a host that reads the records itself and may find them incomplete uses
   * {@link #assess(EvidenceInput, PreflightOutcome, Collection, boolean, List)}.
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
    return assess(input, preflight, observations, true, List.of());
  }

  /**
   * Assesses one server as {@link #assess(EvidenceInput, PreflightOutcome, Collection)}, saying
   * whether the records the observations and the concurrency record came from were read
   * completely. While they were not ({@code recordsComplete} false), the verdict never recommends
   * sharing (docs/statelessness.md, fail closed); {@code recordsNotes} say why ({@code ledger_unreadable},
   * {@code concurrency_records_unreadable}).
   *
   * @throws dev.cotenant.api.EvidenceRejectedException as
   *     {@link #assess(ServerDescription, Optional, PreflightOutcome, Collection)}
   * @throws IllegalArgumentException when a records note carries another code
   */
  public Verdict assess(
      EvidenceInput input,
      PreflightOutcome preflight,
      Collection<HazardCode> observations,
      boolean recordsComplete,
      List<Reason> recordsNotes) {
    return Assessor.assess(
        new Evidence(
            List.copyOf(observations), findings(input), preflight, input.handshake().isPresent(), recordsComplete,
            recordsNotes));
  }

  /**
   * What the provider of a single-provider SPI created, selected and created on first call.
   *
   * @throws IllegalArgumentException for a chain SPI (see {@link #evidenceSourceNames()})
   * @throws dev.cotenant.gateway.providers.ProviderLoadingException when none can be selected or
   *     the provider fails in its factory method
   */
  public <R> R provider(Spi<?, R> spi) {
    Lazy<?> l = singles.get(Objects.requireNonNull(spi, "spi"));
    if (l == null) {
      throw new IllegalArgumentException(spi + " is a chain; every member runs");
    }
    @SuppressWarnings("unchecked")
    R r = (R) l.get();
    return r;
  }

  /** The record stores ({@link Spi#RECORD_STORES}), selected and opened on first call. */
  public RecordStores recordStores() {
    return provider(Spi.RECORD_STORES);
  }

  /** The session transport ({@link Spi#SESSION_TRANSPORT}): how every server is started. */
  public SessionTransport sessionTransport() {
    return provider(Spi.SESSION_TRANSPORT);
  }

  /**
   * The sandbox the probes and the pre-flight start servers in ({@value Sandbox#KEY}): where it is
   * available they can change nothing of the operator's; the transport pool never uses it.
   */
  public Sandbox sandbox() {
    return sandbox;
  }

  /**
   * Where the backends {@link #sharing()} starts live ({@value PidNamespace#KEY}): each in a pid
   * namespace of its own where bubblewrap allows, so nothing a backend starts outlives it.
   */
  public PidNamespace backendNamespace() {
    return backendNamespace;
  }

  /**
   * The session transport inside the {@link #sandbox()} with no network, for probes and the
   * pre-flight: the {@link #sessionTransport()} itself where no sandbox is available.
   */
  public SessionTransport probeSessionTransport() {
    return sandbox.around(sessionTransport(), false, List.of());
  }

  /** The session transport, selected when first asked to open a session or what it runs. */
  private final class SelectedOnFirstOpen implements SessionTransport {
    @Override
    public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
        throws SessionException, InterruptedException {
      return sessionTransport().open(server, label, handler);
    }

    @Override
    public boolean runsCommandLocally() {
      return sessionTransport().runsCommandLocally();
    }
  }

  /** The pre-flight transport ({@link Spi#PREFLIGHT_TRANSPORT}), selected on first call. */
  public PreflightTransport preflightTransport() {
    return provider(Spi.PREFLIGHT_TRANSPORT);
  }

  /** The seeding policy ({@link Spi#SEEDING_POLICY}), selected on first call. */
  public SeedingPolicy seedingPolicy() {
    return provider(Spi.SEEDING_POLICY);
  }

  /**
   * The concurrency limiter that enforces {@code maxConcurrent} (docs/statelessness.md), selected on first
   * call ({@value Spi#LIMITER_KEY}; default {@code semaphore}, in-process).
   */
  public ConcurrencyLimiter limiter() {
    return provider(Spi.LIMITER);
  }

  // ---- the assembly point -------------------------------------------------------------------

  /** How current launch identities are computed (configuration and this runtime's environment). */
  public ExecutionIdentities identities() {
    return identities;
  }

  /** The current launch identity of {@code server}; stats its executable. */
  public ExecutionIdentity identityOf(ServerDescription server) {
    return identities.identify(server);
  }

  /**
   * Loads every record ONCE (the pre-flight cache, the hazard ledger as its owner holds it, the
   * concurrency records) and the identity of each server: the only IO of building rows.
   */
  public LoadedState load(Collection<ConfiguredServer> servers) {
    return load(servers, Map.of());
  }

  /**
   * As {@link #load(Collection)}, with handshakes the host observed itself (see
   * {@link RowLoader#load(Collection, Map)}).
   */
  public LoadedState load(Collection<ConfiguredServer> servers, Map<String, HandshakeFacts> hostHandshakes) {
    return new RowLoader(recordStores(), identities::identify).load(servers, hostHandshakes);
  }

  /** Every row of {@code servers}, in order: one {@link #load}, then rows built without IO. */
  public List<Row> rows(Collection<ConfiguredServer> servers) {
    return new RowBuilder(this::assess).build(load(servers));
  }

  /** Every row of a loaded state, each row's {@code source} labelled by {@code sourceLabel}; no IO. */
  public List<Row> rows(LoadedState state, Function<ConfiguredServer, String> sourceLabel) {
    return new RowBuilder(this::assess, sourceLabel).build(state);
  }

  /**
   * An evaluator over the pre-flight transport and cache, for budgeted passes and uncapped
   * measure jobs (docs/integration.md).
   *
   * @param parallelism servers measured at once within a pass (each pre-flight spawns two processes)
   */
  public Evaluator evaluator(int parallelism) {
    return new Evaluator(
        preflightTransport(), recordStores().preflightCache(), identities::identify,
        () -> System.currentTimeMillis() / 1000.0, parallelism);
  }

  /**
   * The statelessness probe and registration (docs/statelessness.md), over the hazard ledger, the concurrency
   * records and the session transport of this runtime.
   *
   * @throws IllegalArgumentException naming a malformed configuration key
   */
  public Statelessness statelessness() {
    RecordStores stores = recordStores();
    return new Statelessness(
        stores.hazardLedger(), stores.concurrencyRecords(), identities::identify,
        // The transport is selected when the probe first starts a server: registration needs none.
        StatelessnessProbe.fromConfig(
            (server, label, handler) -> probeSessionTransport().open(server, label, handler), config),
        SurfaceProbe.fromConfig(new SelectedOnFirstOpen(), config, sandbox),
        System::currentTimeMillis);
  }

  /**
   * Sharing backends over this runtime's providers (docs/pool.md): placement from each server's
   * current verdict, the transport pool, the multiplexer, admission under {@code maxConcurrent},
   * hazards into the ledger. Each call builds a new {@link Sharing} with a pool of its own: a host
   * keeps one, and closes it to tear every backend down.
   *
   * @throws IllegalArgumentException naming a sharing, pool or multiplexer key whose value is malformed
   */
  public Sharing sharing() {
    RecordStores stores = recordStores();
    return new Sharing(backendNamespace.around(sessionTransport()),
        server -> rows(List.of(new ConfiguredServer(server, recordsDirectory()))).get(0).verdict(),
        stores.hazardLedger(), identities::identify, name -> stores.concurrencyRecords().get(name),
        server -> stores.preflightCache().snapshot().measurement(server.name(), identityOf(server).cacheKey()),
        concurrencyLimits(), SharingSettings.fromConfig(config), PoolSettings.fromConfig(config),
        MuxSettings.fromConfig(config), CoreSettings.era(config), CoreSettings.timeout(config));
  }

  /** Admission under each server's {@code maxConcurrent}, through the limiter. */
  public ConcurrencyLimits concurrencyLimits() {
    return new ConcurrencyLimits(limiter());
  }

  /** Seeding with the seeding policy, keeping its markers in the pre-flight cache. */
  public Seeder seeder() {
    return new Seeder(seedingPolicy(), recordStores().preflightCache());
  }

  /**
   * The bulk stub action (docs/integration.md): eligibility of each candidate decided inside the lock hold
   * that writes {@code config}, from the sharing switch as read there.
   *
   * @param verdicts the current verdict of each name (from {@link #rows})
   */
  public BulkStub.Result bulkStub(LockedJsonFile config, Collection<String> candidates, Map<String, Verdict> verdicts)
      throws ConfigException {
    return BulkStub.stub(config, candidates, verdicts::get);
  }

  /** The verdicts of {@code rows} by name, in row order, for seeding and bulk stubbing. */
  public static Map<String, Verdict> verdicts(List<Row> rows) {
    Map<String, Verdict> out = new LinkedHashMap<>();
    rows.forEach(r -> out.put(r.name(), r.verdict()));
    return out;
  }

  /** Selects and creates a single provider on first use. */
  private static final class Lazy<R> {
    private final Object lock = new Object();
    private final Supplier<R> make;
    private @Nullable R value;

    Lazy(Supplier<R> make) {
      this.make = make;
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
   * Builds a {@link Cotenant}. Every SPI accepts explicit instances ({@link #provider}), so a
   * host's test can replace any provider with a fake without touching the classpath. Not
   * thread-safe; {@link #build()} may be called more than once.
   */
  public static final class Builder {
    private ProviderConfig config = ProviderConfig.empty();
    private @Nullable Path recordsDirectory;
    private Map<String, String> environment = System.getenv();
    private ProviderDiscovery discovery = ProviderDiscovery.classpath();
    private final Map<Spi<?, ?>, List<NamedProvider>> explicit = new LinkedHashMap<>();

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

    /**
     * The environment servers are launched from and the records directory is resolved against
     * ({@code COTENANT_HOME}); this process's environment by default.
     */
    public Builder environment(Map<String, String> environment) {
      this.environment = Map.copyOf(environment);
      return this;
    }

    /**
     * Uses {@code provider} for {@code spi}: for a chain it joins the discovered members
     * (replacing one of the same name); for a single-provider SPI it is used and configuration and
     * discovery are not consulted (the last one given wins).
     */
    public <T extends NamedProvider> Builder provider(Spi<T, ?> spi, T provider) {
      Objects.requireNonNull(spi, "spi");
      explicit.computeIfAbsent(spi, k -> new ArrayList<>()).add(spi.cast(Objects.requireNonNull(provider, "provider")));
      return this;
    }

    /** Adds an evidence source; it replaces a discovered one of the same name. */
    public Builder evidenceSource(EvidenceSourceProvider provider) {
      return provider(Spi.EVIDENCE_SOURCES, provider);
    }

    /** Adds a managed-server classifier; it replaces a discovered one of the same name. */
    public Builder classifier(ManagedServerClassifierProvider provider) {
      return provider(Spi.CLASSIFIERS, provider);
    }

    /** Uses this record store provider. */
    public Builder recordStores(RecordStoreProvider provider) {
      return provider(Spi.RECORD_STORES, provider);
    }

    /** Uses this session transport provider (for the pre-flight, the probe and the pool). */
    public Builder sessionTransport(SessionTransportProvider provider) {
      return provider(Spi.SESSION_TRANSPORT, provider);
    }

    /** Uses this pre-flight transport provider. */
    public Builder preflightTransport(PreflightTransportProvider provider) {
      return provider(Spi.PREFLIGHT_TRANSPORT, provider);
    }

    /** Uses this seeding policy provider. */
    public Builder seedingPolicy(SeedingPolicyProvider provider) {
      return provider(Spi.SEEDING_POLICY, provider);
    }

    /** Uses this concurrency limiter provider. */
    public Builder limiter(ConcurrencyLimiterProvider provider) {
      return provider(Spi.LIMITER, provider);
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
     * @throws IllegalArgumentException naming a malformed configuration key of the runtime
     *     ({@code cotenant.secret-patterns}, the records directory)
     */
    public Cotenant build() {
      return new Cotenant(this);
    }

    /** The explicit providers of {@code spi}, in the order given. */
    <T extends NamedProvider> List<T> explicit(Spi<T, ?> spi) {
      List<T> out = new ArrayList<>();
      explicit.getOrDefault(spi, List.of()).forEach(p -> out.add(spi.cast(p)));
      return out;
    }

    Builder copy() {
      Builder b = new Builder();
      b.config = config;
      b.recordsDirectory = recordsDirectory;
      b.environment = environment;
      b.discovery = discovery;
      explicit.forEach((k, v) -> b.explicit.put(k, new ArrayList<>(v)));
      return b;
    }

    /** Replaces the explicit providers of {@code spi} with {@code providers}. */
    Builder replace(Spi<?, ?> spi, Collection<? extends NamedProvider> providers) {
      explicit.put(spi, new ArrayList<>(providers));
      return this;
    }
  }
}
