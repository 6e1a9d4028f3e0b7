/**
 * Cotenant's extension points. Each is a small {@code XxxProvider} interface with a stable
 * lowercase {@code name()} and one factory method taking a {@link dev.cotenant.spi.ProviderContext};
 * implementations are registered in {@code META-INF/services/<interface name>} and found through
 * {@link java.util.ServiceLoader} by exactly one class in the gateway adapter. A host may instead
 * pass provider instances to {@code Cotenant.builder()} or {@code CotenantModule}.
 *
 * <p>This package depends on {@code cotenant-api} and the JDK only.
 */
@NullMarked
package dev.cotenant.spi;

import org.jspecify.annotations.NullMarked;
