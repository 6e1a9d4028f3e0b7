package dev.cotenant.gateway.probe;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.gateway.identity.IdentityResolver;
import dev.cotenant.spi.ConcurrencyRecords;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.HazardLedger;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the statelessness probes and keeps what they prove (docs/statelessness.md), and registers servers'
 * concurrency models on the strength of it.
 *
 * <ul>
 *   <li>{@link #probeSurface} probes the WHOLE SURFACE ({@link SurfaceProbe}); {@link #probe}
 *       probes one tool ({@link StatelessnessProbe}).
 *   <li>A hazard is an observation: each code the probe observed ({@code cross_session_leak},
 *       {@code unattributable_notification}, {@code unroutable_server_request}) is recorded in the
 *       hazard ledger under the server's current identity (two sessions were attached to the one
 *       backend) and the ledger is flushed, so the server reads {@code refuted} from then on. A
 *       pass the same identity had is withdrawn (a {@code shared} record falls back to
 *       {@code sidecar}).
 *   <li>A pass is remembered in the concurrency records under the current identity, where it
 *       surfaces as {@code statelessness_probe_passed}; an existing registration is kept. A
 *       single-tool pass never replaces a whole-surface pass under the same identity.
 *   <li>{@link #register} refuses {@code shared} unless a WHOLE-SURFACE probe passed under the
 *       server's CURRENT identity and the ledger holds nothing against that identity, and while
 *       the ledger or the concurrency records cannot be read completely (fail closed: what could
 *       not be read may be the observation that refutes it).
 * </ul>
 *
 * <p>Built by {@code Cotenant#statelessness()} over the runtime's stores and session transport.
 * Thread-safe when the stores are: the records are changed through
 * {@link ConcurrencyRecords#update}.
 */
public final class Statelessness {
  private static final Logger LOG = LoggerFactory.getLogger(Statelessness.class);

  /** A probe runs two callers on one backend: the ledger records only for a shared backend. */
  static final int PROBE_SESSIONS = 2;

  private final HazardLedger ledger;
  private final ConcurrencyRecords records;
  private final IdentityResolver identities;
  private final StatelessnessProbe probe;
  private final SurfaceProbe surface;
  private final LongSupplier clockMillis;

  /**
   * @param ledger where a leak is recorded
   * @param records where passes and registrations live
   * @param identities computes a server's current launch identity
   * @param probe the single-tool runner
   * @param surface the whole-surface runner
   * @param clockMillis the clock for {@code passedAt}
   */
  public Statelessness(
      HazardLedger ledger, ConcurrencyRecords records, IdentityResolver identities,
      StatelessnessProbe probe, SurfaceProbe surface, LongSupplier clockMillis) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.records = Objects.requireNonNull(records, "records");
    this.identities = Objects.requireNonNull(identities, "identities");
    this.probe = Objects.requireNonNull(probe, "probe");
    this.surface = Objects.requireNonNull(surface, "surface");
    this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
  }

  /** The concurrency records. */
  public ConcurrencyRecords records() {
    return records;
  }

  /** The server's current ledger identity. */
  public String identityOf(ServerDescription server) {
    return identities.identify(server).ledgerKey();
  }

  /**
   * Probes {@code server} and records what the probe proved: a leak in the ledger (flushed
   * before returning), a pass in the concurrency records. A probe that could not run, or that
   * saw no leak but did not get the markers back, records nothing.
   *
   * <p>A record that cannot be written does not lose the report: it comes back with
   * {@link ProbeReport#notRecorded()} saying what was not written and why, and the caller must
   * show it. A leak that could not be written to the file stays in this runtime's ledger, so a
   * later flush of it may still write it.
   */
  public ProbeReport probe(ServerDescription server, ProbeSpec spec) throws InterruptedException {
    ExecutionIdentity identity = identities.identify(server);
    String key = identity.ledgerKey();
    ProbeReport report = probe.run(server, key, spec);
    String name = server.name();
    List<String> notWritten = new ArrayList<>();
    switch (report.outcome()) {
      case LEAKED:
        ledger.record(name, key, HazardCode.CROSS_SESSION_LEAK, PROBE_SESSIONS);
        if (write(notWritten, HazardCode.CROSS_SESSION_LEAK.wireName() + " for " + name + " was not written to the hazard ledger",
            ledger::flush)) {
          // Info, not a warning: the caller has the report and shows it (the CLI prints it once).
          LOG.info("statelessness probe of {}: a caller saw the other's marker; recorded {}",
              LogSafe.escape(name), HazardCode.CROSS_SESSION_LEAK.wireName());
        }
        withdrawPassUnder(key, name, notWritten);
        break;
      case PASSED:
        ProbePass pass = new ProbePass(key, spec.tool(), report.rounds().size(), clockMillis.getAsLong() / 1000.0);
        // A single-tool pass is supporting evidence only; it never backs a registration.
        recordPass(pass, "the pass of " + name, name, notWritten);
        break;
      default:
        break;
    }
    return notWritten.isEmpty() ? report : report.withNotRecorded(String.join("; ", notWritten));
  }

  /**
   * Probes the WHOLE SURFACE of {@code server} ({@link SurfaceProbe}) and records what it proved:
   * every hazard it observed in the ledger under the current identity (flushed before returning;
   * a pass under that identity is withdrawn), or a whole-surface pass in the concurrency records,
   * naming the tools exercised and the tools the plan skipped. A probe that proved nothing, or
   * could not run, records nothing. A record that cannot be written comes back in
   * {@link SurfaceReport#notRecorded()}.
   *
   * @param plan the operator's plan ({@link ProbePlan#empty()} for none)
   * @param rounds rounds per caller
   */
  public SurfaceReport probeSurface(ServerDescription server, ProbePlan plan, int rounds) throws InterruptedException {
    String key = identities.identify(server).ledgerKey();
    SurfaceReport report = surface.run(server, key, plan, rounds);
    String name = server.name();
    List<String> notWritten = new ArrayList<>();
    switch (report.outcome()) {
      case HAZARD:
        for (HazardCode code : report.hazardCodes()) {
          ledger.record(name, key, code, PROBE_SESSIONS);
        }
        if (write(notWritten, report.hazardCodes().stream().map(HazardCode::wireName).sorted().toList() + " for " + name
            + " was not written to the hazard ledger", ledger::flush)) {
          LOG.info("whole-surface probe of {}: recorded {}", LogSafe.escape(name),
              report.hazardCodes().stream().map(HazardCode::wireName).sorted().toList());
        }
        withdrawPassUnder(key, name, notWritten);
        break;
      case PASSED:
        ProbePass pass = ProbePass.wholeSurface(key, rounds, clockMillis.getAsLong() / 1000.0,
            ProbePass.Surface.of(report.exercised(), report.skippedByPlan(), report.clients().capabilities(),
                SurfaceProbe.protocolVersions(report)));
        recordPass(pass, "the whole-surface pass of " + name, name, notWritten);
        break;
      default:
        break;
    }
    return notWritten.isEmpty() ? report : report.withNotRecorded(String.join("; ", notWritten));
  }

  /** A write to the records. */
  @FunctionalInterface
  private interface Write {
    void run() throws IOException;
  }

  /** Runs {@code write}; on failure adds {@code what} and the cause to {@code notWritten} and returns false. */
  /** Withdraws the statelessness pass on record for {@code name} under {@code key}, if there is one. */
  private void withdrawPassUnder(String key, String name, List<String> notWritten) {
    if (records.get(name).filter(r -> r.probedUnder(key)).isPresent()) {
      write(notWritten, "the statelessness pass of " + name + " on record under this identity was not withdrawn",
          () -> records.update(name, current -> current.map(r -> withdrawn(r, key))));
    }
  }

  /** Writes {@code pass} onto the record of {@code name}; {@code what} names it if it cannot be written. */
  private void recordPass(ProbePass pass, String what, String name, List<String> notWritten) {
    write(notWritten, what + " was not written to the concurrency records",
        () -> records.update(name, current -> Optional.of(passed(name, current, pass))));
  }

  private static boolean write(List<String> notWritten, String what, Write write) {
    try {
      write.run();
      return true;
    } catch (IOException | UncheckedIOException e) {
      String m = e.getMessage();
      notWritten.add(what + ": " + e.getClass().getSimpleName() + (m == null ? "" : ": " + m));
      return false;
    }
  }

  /**
   * The record with {@code pass} on it. A single-tool pass never replaces a whole-surface pass
   * under the same identity (it proves less); on a {@code shared} record whose whole-surface pass
   * is under another identity the registration has lapsed already, and the record falls back to
   * {@code sidecar} with the single-tool pass.
   */
  private static ConcurrencyRecord passed(String name, Optional<ConcurrencyRecord> current, ProbePass pass) {
    if (current.isEmpty()) {
      return new ConcurrencyRecord(name, ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(), Optional.of(pass));
    }
    ConcurrencyRecord r = current.get();
    if (!pass.wholeSurface()) {
      if (r.probe().filter(p -> p.wholeSurface() && p.identity().equals(pass.identity())).isPresent()) {
        return r;
      }
      if (r.model() == ConcurrencyModel.SHARED) {
        return new ConcurrencyRecord(name, ConcurrencyModel.SIDECAR, r.scope(), r.maxConcurrent(), Optional.of(pass));
      }
    }
    return new ConcurrencyRecord(name, r.model(), r.scope(), r.maxConcurrent(), Optional.of(pass));
  }

  /** The record without the pass it held under {@code identity}; a {@code shared} one falls back to {@code sidecar}. */
  private static ConcurrencyRecord withdrawn(ConcurrencyRecord r, String identity) {
    if (!r.probedUnder(identity)) {
      return r;
    }
    ConcurrencyModel model = r.model() == ConcurrencyModel.SHARED ? ConcurrencyModel.SIDECAR : r.model();
    return new ConcurrencyRecord(r.serverName(), model, r.scope(), r.maxConcurrent(), Optional.empty());
  }

  /**
   * Registers how {@code server} may be used. {@code shared} needs the hazard ledger and the
   * concurrency records to be read completely (the ledger is re-read first, to see what other
   * writers recorded), a WHOLE-SURFACE statelessness probe that passed under the server's CURRENT
   * launch identity (a single-tool pass is refused), no hazard in the ledger under it, and a
   * positive {@code maxConcurrent}; the other models need nothing and keep a pass on record.
   *
   * @return the stored record
   * @throws RegistrationRefusedException saying why, and what to run first
   * @throws IOException when the records cannot be written
   */
  public ConcurrencyRecord register(
      ServerDescription server, ConcurrencyModel model, ShareScope scope, OptionalInt maxConcurrent)
      throws RegistrationRefusedException, IOException {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(maxConcurrent, "maxConcurrent");
    String name = server.name();
    String key = identityOf(server);
    if (model == ConcurrencyModel.SHARED) {
      ledger.reload();
      HazardLedger.Snapshot read = ledger.snapshot();
      if (!read.complete()) {
        throw new RegistrationRefusedException("refusing to register " + name + " as shared: the hazard ledger cannot be "
            + "read completely (" + read.incomplete().orElseThrow() + "); an observation it holds may be hidden, and "
            + "nothing is registered or recommended as shared until it can be read completely");
      }
      ConcurrencyRecords.Snapshot stored = records.load();
      if (!stored.complete()) {
        throw new RegistrationRefusedException("refusing to register " + name + " as shared: the concurrency records "
            + "cannot be read completely (" + stored.incomplete().orElseThrow() + "); a withdrawn registration may be "
            + "hidden, and nothing is registered or recommended as shared until they can be read completely");
      }
      Set<HazardCode> observed = read.codesFor(name, key);
      if (!observed.isEmpty()) {
        throw new RegistrationRefusedException("refusing to register " + name + " as shared: the hazard ledger holds "
            + observed.stream().map(HazardCode::wireName).sorted().toList()
            + " under its current launch identity; an observation outranks any registration");
      }
    }
    try {
      return records.update(name, current -> {
        Optional<ProbePass> pass = current.flatMap(ConcurrencyRecord::probe);
        if (model == ConcurrencyModel.SHARED) {
          if (pass.isEmpty()) {
            throw new Refusal("refusing to register " + name + " as shared: no whole-surface statelessness probe has "
                + "passed for it; run `cotenant probe-stateless " + name + "` first");
          }
          if (!pass.get().wholeSurface()) {
            throw new Refusal("refusing to register " + name + " as shared: its statelessness probe covered one tool ("
                + pass.get().detail() + "), and sharing is decided per process; run the whole-surface probe "
                + "`cotenant probe-stateless " + name + "` (without --tool) first");
          }
          if (!pass.get().identity().equals(key)) {
            throw new Refusal("refusing to register " + name + " as shared: its statelessness probe passed under "
                + "another launch identity (its command, arguments, working directory, environment or executable "
                + "changed since); probe it again");
          }
          if (maxConcurrent.isEmpty()) {
            throw new Refusal("refusing to register " + name + " as shared without maxConcurrent: say how many calls "
                + "its backend can serve at once (--max-concurrent N, a positive integer)");
          }
        }
        try {
          return Optional.of(new ConcurrencyRecord(name, model, scope, maxConcurrent,
              pass.filter(p -> p.identity().equals(key))));
        } catch (IllegalArgumentException e) {
          throw new Refusal(e.getMessage());
        }
      }).orElseThrow();
    } catch (Refusal r) {
      throw new RegistrationRefusedException(r.getMessage());
    }
  }

  /** Carries a refusal out of the records' update, which then writes nothing. */
  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refusal(String message) {
      super(message, null, false, false);
    }
  }

  /** The stored record of {@code serverName}, if one holds. */
  public Optional<ConcurrencyRecord> record(String serverName) {
    return records.get(serverName);
  }

  /**
   * The full evidence input of {@code server}: its current ledger identity and its concurrency
   * record beside the handshake, so {@code registered_shared} and
   * {@code statelessness_probe_passed} can speak.
   */
  public EvidenceInput evidenceInput(ServerDescription server, Optional<HandshakeFacts> handshake) {
    return new EvidenceInput(server, handshake, Optional.of(identityOf(server)), records.get(server.name()));
  }
}
