/**
 * Provider discovery and selection. {@link dev.cotenant.gateway.providers.ProviderLoader} is the
 * one class that calls {@link java.util.ServiceLoader}; it sits behind the
 * {@link dev.cotenant.gateway.providers.ProviderDiscovery} seam so tests and dependency
 * injection can supply providers without touching the classpath.
 * {@link dev.cotenant.gateway.providers.ProviderSelection} applies the selection rules to what
 * was discovered; it does no discovery of its own. {@link dev.cotenant.gateway.providers.EvidenceChain}
 * holds the two selected chains, the classifiers and the evidence sources, and runs them for a
 * server's findings.
 */
@NullMarked
package dev.cotenant.gateway.providers;

import org.jspecify.annotations.NullMarked;
