/**
 * Sharing backends, assembled (docs/pool.md): {@link dev.cotenant.gateway.sharing.Sharing} places
 * each client session of a server on a shared or a dedicated backend from the server's verdict,
 * over the {@link dev.cotenant.gateway.pool.TransportPool} (lifecycle) and the
 * {@link dev.cotenant.gateway.mux.Multiplexer} (routing), admits calls within the server's
 * {@code maxConcurrent} ({@link dev.cotenant.gateway.sharing.ConcurrencyLimits}), and records
 * what the multiplexer could not route in the hazard ledger. Each client session is a
 * {@link dev.cotenant.gateway.sharing.ClientSession}, which sees {@code Sharing} only through the
 * package-private {@code SessionHost}: a backend for a placement, whether its backend is still the
 * one to use, and a slot for a call.
 */
@NullMarked
package dev.cotenant.gateway.sharing;

import org.jspecify.annotations.NullMarked;
