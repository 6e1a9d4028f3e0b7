package dev.cotenant.api;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The closed vocabulary of reason codes (docs/architecture.md). The wire name is the only part of a reason
 * that may ever be exported; adding a code is a change to the core.
 */
public enum ReasonCode {
  /** A ledger entry under the current launch identity; detail: the hazard code. */
  OBSERVED_HAZARD(ReasonRole.OBSERVATION, Origin.CORE),
  /** No stdio pipe: out of scope, not unsafe. */
  NOT_STDIO(ReasonRole.DISQUALIFYING_FACT, Origin.SOURCE),
  /** The host's managed-server classifier says the server resolves its caller from its own process, or is withheld. */
  SESSION_BOUND_BY_CONSTRUCTION(ReasonRole.DISQUALIFYING_FACT, Origin.SOURCE),
  /** {@code capabilities.experimental} carries a recognised caller-identity key; detail: the key. */
  DECLARES_CALLER_IDENTITY(ReasonRole.DECLARATION, Origin.SOURCE),
  /** A concurrency record says {@code shared} and its probe passed under the current identity; detail: the share scope. */
  REGISTERED_SHARED(ReasonRole.DECLARATION, Origin.SOURCE),
  /** The pre-flight ran and found no divergence. */
  PREFLIGHT_PASSED(ReasonRole.MEASUREMENT, Origin.CORE),
  /**
   * The pre-flight could not run under this identity (detail: why), at any strength; or, beside a
   * declaration, no measurement exists under it (no detail). Supporting: it grounds nothing.
   */
  PREFLIGHT_NOT_RUN(ReasonRole.SUPPORTING, Origin.CORE),
  /** The pre-flight saw a divergent replayed surface; detail: the facet. */
  HANDSHAKE_NOT_REPRODUCIBLE(ReasonRole.NOTE, Origin.CORE),
  /**
   * The ledger holds {@link HazardCode#DEFERRED_ANSWER_CHANGED} under the current identity: a start
   * answered from the records differed from the live server's, so sessions of this identity are no
   * longer answered from them. A note: it says nothing about co-tenancy.
   */
  DEFERRED_ANSWER_CHANGED(ReasonRole.NOTE, Origin.CORE),
  /** A declared env name excluded from the pool key as a secret; detail: the name. */
  ROTATING_SECRET_ENV(ReasonRole.NOTE, Origin.SOURCE),
  /** The server advertises {@code logging}; detail: {@code logging_level}. */
  DEGRADES_WHEN_SHARED(ReasonRole.NOTE, Origin.SOURCE),
  /**
   * The hazard ledger could not be read completely (cut off, a newer schema, an entry of the wrong
   * type, an unreadable copy moved aside); detail: the file and the problem. Explains why nothing
   * recommends sharing; the gate is {@link Evidence#recordsComplete()}.
   */
  LEDGER_UNREADABLE(ReasonRole.NOTE, Origin.CORE),
  /**
   * The concurrency records could not be read completely; detail: the file and the problem.
   * Explains why nothing recommends sharing; the gate is {@link Evidence#recordsComplete()}.
   */
  CONCURRENCY_RECORDS_UNREADABLE(ReasonRole.NOTE, Origin.CORE),
  /** Every tool declares {@code readOnlyHint: true}. */
  ALL_TOOLS_READ_ONLY(ReasonRole.SUPPORTING, Origin.SOURCE),
  /** Tool annotations were unavailable; detail: the negotiated protocol version. */
  NO_TOOL_ANNOTATIONS(ReasonRole.SUPPORTING, Origin.SOURCE),
  /** {@code tools/list} produced nothing. */
  NO_TOOLS_LISTED(ReasonRole.SUPPORTING, Origin.SOURCE),
  /** An interleaved statelessness probe passed under this identity; detail: tool and rounds. */
  STATELESSNESS_PROBE_PASSED(ReasonRole.SUPPORTING, Origin.SOURCE),
  /** Nothing disqualifying was found. */
  NO_OBJECTION_FOUND(ReasonRole.NO_OBJECTION, Origin.CORE),
  /** No handshake was observed. */
  NOT_PROBED(ReasonRole.UNKNOWN, Origin.CORE);

  /** Who may produce a code: the core derives some; evidence sources contribute the rest. */
  public enum Origin {
    /** Derived by {@link Assessor} from its inputs; an evidence source may not contribute it. */
    CORE,
    /** Contributed by an evidence source or a classifier. */
    SOURCE
  }

  private final ReasonRole role;
  private final Origin origin;
  private final String wireName = name().toLowerCase(Locale.ROOT);

  ReasonCode(ReasonRole role, Origin origin) {
    this.role = role;
    this.origin = origin;
  }

  /** The stable snake_case wire name. */
  public String wireName() {
    return wireName;
  }

  /** The part this code plays in a verdict. */
  public ReasonRole role() {
    return role;
  }

  /** Whether the core derives this code or a source contributes it. */
  public Origin origin() {
    return origin;
  }

  private static final Map<String, ReasonCode> BY_WIRE_NAME;

  static {
    Map<String, ReasonCode> byWire = new HashMap<>();
    for (ReasonCode c : values()) {
      byWire.put(c.wireName, c);
    }
    BY_WIRE_NAME = java.util.Collections.unmodifiableMap(byWire);
  }

  /** Looks a wire name up; empty when the vocabulary does not contain it. */
  public static Optional<ReasonCode> fromWire(String wire) {
    return Optional.ofNullable(BY_WIRE_NAME.get(wire));
  }

  /** All wire names, for error messages. */
  public static String allWireNames() {
    return WireNames.of(values(), ReasonCode::wireName);
  }
}
