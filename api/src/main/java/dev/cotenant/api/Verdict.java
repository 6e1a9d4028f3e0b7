package dev.cotenant.api;

import java.util.List;
import java.util.Objects;

/**
 * What the core concluded about one server.
 *
 * @param strength the strongest ground present
 * @param reasons every reason, strongest role first, in a deterministic order
 * @param recommendStub keep the backend 1:1 with the session (the topology of no gateway); true
 *     at {@code declared}, {@code measured} and {@code no_objection}
 * @param recommendShare co-tenancy; true only at {@code declared}, and only while the records were
 *     read completely
 */
public record Verdict(Strength strength, List<Reason> reasons, boolean recommendStub, boolean recommendShare) {
  public Verdict {
    Objects.requireNonNull(strength, "strength");
    reasons = List.copyOf(reasons);
  }

  /** True when some reason carries {@code code}. */
  public boolean has(ReasonCode code) {
    for (Reason r : reasons) {
      if (r.code() == code) {
        return true;
      }
    }
    return false;
  }
}
