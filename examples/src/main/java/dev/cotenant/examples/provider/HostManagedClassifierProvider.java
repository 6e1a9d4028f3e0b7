package dev.cotenant.examples.provider;

import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A host's own managed-server classifier, as an integrator would write one: it names the
 * servers the host ships that resolve their caller from their own process (an env variable, a
 * pid walk) and therefore must never share a backend, whatever they advertise.
 *
 * <p>Which servers those are is configuration ({@value #SERVERS_KEY}, comma-separated server
 * names), because nothing about which servers a machine runs ships with Cotenant. Registered in
 * {@code META-INF/services/dev.cotenant.spi.ManagedServerClassifierProvider}; construction does
 * nothing; the classifier is immutable and thread-safe.
 */
public final class HostManagedClassifierProvider implements ManagedServerClassifierProvider {
  /** This classifier's name. */
  public static final String NAME = "host-managed";

  /** The servers this host knows to be session-bound by construction. */
  public static final String SERVERS_KEY = "examples.session-bound-servers";

  /** The detail of every {@code session_bound_by_construction} finding this classifier makes. */
  public static final String REASON = "host-managed: resolves its caller from its own process";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ManagedServerClassifier create(ProviderContext context) {
    Set<String> sessionBound = Set.copyOf(context.config().getList(SERVERS_KEY, List.of()));
    return server -> sessionBound.contains(server.name()) ? Optional.of(REASON) : Optional.empty();
  }
}
