package dev.cotenant.gateway.archfixture;

import dev.cotenant.gateway.Cotenant;

/** Breaks the layering below the assembly point on purpose: a subpackage class that takes the runtime. */
public final class ReachesTheAssemblyPoint {
  private ReachesTheAssemblyPoint() {}

  /** Its configuration, read through the whole runtime. */
  public static Object config(Cotenant cotenant) {
    return cotenant.config();
  }
}
