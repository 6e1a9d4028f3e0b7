package dev.cotenant.gateway.rows;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.PreflightRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The pure half of building rows (docs/integration.md): every row from a {@link LoadedState}, with no IO.
 * For each server it reads, from the loaded state only:
 *
 * <ul>
 *   <li>the stored measurement under the server's current identity ({@code cacheKey()}); a row
 *       under another identity is "no measurement";
 *   <li>the pre-flight outcome: {@code Ran} with the divergent facets when the stored row ran,
 *       {@code NotRun} with its reason (bounded) when it could not, {@code NotMeasured} when there
 *       is no row;
 *   <li>the handshake: the host's own when it supplied one, else the stored first-caller one;
 *   <li>the hazards the ledger holds under the identity's {@code ledgerKey()};
 *   <li>the server's concurrency record, which counts only under that same {@code ledgerKey()};
 *   <li>whether the ledger and the concurrency records were read completely, and if not why
 *       ({@link LoadedState#recordsComplete()}, {@link LoadedState#recordsNotes()}): while they
 *       were not, no row recommends sharing and every row says why;
 * </ul>
 *
 * and hands them to its {@link RowAssessor} (the runtime's {@code assess}). Thread-safe when the
 * assessor is.
 */
public final class RowBuilder {
  /** The facet named when a stored row says it diverged but names no facet. */
  static final String UNNAMED_FACET = "unspecified";

  /**
   * The most characters of a stored "could not run" reason a row carries (in JSON as in a table,
   * where it is escaped as well); a longer one is cut and ends with {@code …}.
   */
  static final int NOT_RUN_REASON_MAX = 500;

  private final RowAssessor assessor;
  private final Function<ConfiguredServer, String> sourceLabel;

  /** Rows assessed by {@code assessor}, labelled with the source file's path as read. */
  public RowBuilder(RowAssessor assessor) {
    this(assessor, s -> s.source().toString());
  }

  /** Rows assessed by {@code assessor}, whose {@code source} is {@code sourceLabel} of the configured server. */
  public RowBuilder(RowAssessor assessor, Function<ConfiguredServer, String> sourceLabel) {
    this.assessor = Objects.requireNonNull(assessor, "assessor");
    this.sourceLabel = Objects.requireNonNull(sourceLabel, "sourceLabel");
  }

  /** Every row, in the state's server order. */
  public List<Row> build(LoadedState state) {
    List<Row> rows = new ArrayList<>(state.servers().size());
    for (ConfiguredServer s : state.servers()) {
      rows.add(row(state, s));
    }
    return List.copyOf(rows);
  }

  /** The row of one server of {@code state}. */
  public Row row(LoadedState state, ConfiguredServer server) {
    ExecutionIdentity id = state.identities().get(server.name());
    if (id == null) {
      throw new IllegalArgumentException("server \"" + server.name() + "\" is not part of the loaded state");
    }
    Optional<PreflightRecord> measurement = state.cache().measurement(server.name(), id.cacheKey());
    Optional<HandshakeFacts> handshake =
        Optional.ofNullable(state.hostHandshakes().get(server.name()))
            .or(() -> measurement.filter(PreflightRecord::ran).flatMap(PreflightRecord::handshake));
    Set<HazardCode> hazards = state.ledger().codesFor(server.name(), id.ledgerKey());
    return new Row(
        server.name(),
        sourceLabel.apply(server),
        assessor.assess(
            new EvidenceInput(server.description(), handshake, Optional.of(id.ledgerKey()),
                state.concurrency().get(server.name())),
            outcome(measurement),
            hazards,
            state.recordsComplete(),
            state.recordsNotes()));
  }

  /** The pre-flight outcome a stored measurement stands for. */
  static PreflightOutcome outcome(Optional<PreflightRecord> measurement) {
    if (measurement.isEmpty()) {
      return PreflightOutcome.NOT_MEASURED;
    }
    PreflightRecord r = measurement.get();
    if (!r.ran()) {
      String why = String.join("; ", r.reasons());
      return new PreflightOutcome.NotRun(why.isBlank() ? "the pre-flight could not run" : bounded(why));
    }
    if (r.callerSensitive()) {
      // A row that says it diverged without naming a facet still diverged: never read it as passed.
      return new PreflightOutcome.Ran(r.reasons().isEmpty() ? List.of(UNNAMED_FACET) : r.reasons());
    }
    return PreflightOutcome.passed();
  }

  /** {@code text} cut to {@link #NOT_RUN_REASON_MAX} characters, never inside a surrogate pair. */
  static String bounded(String text) {
    if (text.length() <= NOT_RUN_REASON_MAX) {
      return text;
    }
    int end = NOT_RUN_REASON_MAX - 1;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + "…";
  }
}
