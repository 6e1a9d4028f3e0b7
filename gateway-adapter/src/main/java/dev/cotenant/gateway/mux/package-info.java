/**
 * Many client sessions over one backend process (docs/pool.md): the multiplexing half of a shared
 * backend.
 *
 * <ul>
 *   <li>{@link dev.cotenant.gateway.mux.Multiplexer} is the backend session's
 *       {@link dev.cotenant.spi.ServerMessageHandler} and routes every message between the
 *       backend and the attached clients: request ids and progress tokens rewritten, the
 *       handshake answered from its cached result, {@code ping} and {@code logging/setLevel}
 *       answered locally, server requests and request-scoped notifications to their owner,
 *       list-changed notices to all, resource updates to their subscribers, and a dead backend's
 *       calls failed as {@code call interrupted}, never replayed. Its Javadoc lists every rule. It
 *       is the facade of package-private classes, one per concern: the attached session
 *       ({@code Channel}), the calls in flight ({@code InFlightTable}), what is answered locally
 *       ({@code LocalAnswers}), the era bridge ({@code EraBridge}), logging levels
 *       ({@code LogLevels}), server requests ({@code ServerRequests}), server notifications
 *       ({@code ServerNotifications}) and subscriptions ({@code Subscriptions}). Messages come in
 *       classified ({@link dev.cotenant.spi.rpc.RpcMessage}) and go out as
 *       {@link dev.cotenant.spi.rpc.Envelope}s.
 *   <li>{@link dev.cotenant.gateway.mux.Attach} says whether a client shares the backend or needs
 *       a dedicated one; {@link dev.cotenant.gateway.mux.ClientChannel} and
 *       {@link dev.cotenant.gateway.mux.ClientSink} carry its messages in and out.
 *   <li>{@link dev.cotenant.gateway.mux.HazardSink} receives what could not be routed or
 *       attributed while several sessions were attached, for the hazard ledger.
 *   <li>{@link dev.cotenant.gateway.mux.MuxSettings} bounds sessions and calls in flight
 *       ({@code cotenant.mux.*}).
 * </ul>
 */
@NullMarked
package dev.cotenant.gateway.mux;

import org.jspecify.annotations.NullMarked;
