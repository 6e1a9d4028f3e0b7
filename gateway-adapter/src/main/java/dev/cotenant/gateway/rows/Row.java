package dev.cotenant.gateway.rows;

import dev.cotenant.api.Reason;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import java.util.List;
import java.util.Objects;

/**
 * One server's row: what a dashboard, the HTTP API or the CLI shows for it.
 *
 * @param name the configured name
 * @param source where the server was defined (a configuration file, or a label the host chose)
 * @param verdict the verdict, built from the loaded records and the configuration only
 */
public record Row(String name, String source, Verdict verdict) {
  public Row {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(verdict, "verdict");
  }

  /** The verdict's strength. */
  public Strength strength() {
    return verdict.strength();
  }

  /** Keep the backend 1:1 with the session. */
  public boolean recommendStub() {
    return verdict.recommendStub();
  }

  /** Co-tenancy: only at {@code declared}. */
  public boolean recommendShare() {
    return verdict.recommendShare();
  }

  /** Every reason (code plus verbatim detail), strongest role first. */
  public List<Reason> reasons() {
    return verdict.reasons();
  }
}
