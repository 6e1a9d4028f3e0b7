/**
 * The transport pool (docs/pool.md): the lifecycle of the backends that client sessions use.
 *
 * <p>{@link dev.cotenant.gateway.pool.TransportPool} keys entries by
 * {@link dev.cotenant.gateway.pool.PoolKey} (server name and a fingerprint of the canonical launch
 * configuration), starts each backend once however many sessions ask for it at once, counts the
 * sessions attached, drains an entry after its last session leaves, restarts a backend that
 * died under its sessions, bounds the live entries, and drains everything at shutdown. It is
 * generic over what it manages: a {@link dev.cotenant.gateway.pool.PooledBackend} started by a
 * {@link dev.cotenant.gateway.pool.BackendFactory}, which for a host is a process speaking MCP
 * and the multiplexer in front of it, and in tests a fake.
 *
 * <p>Inside, the pool is the coordinator of four package-private parts: {@code EntryTable} keeps
 * the entries, the sessions attached to them, their idle timers and their closes under one lock;
 * {@code Restarter} runs the starts and restarts; and two pure rules decide, per entry, when an
 * idle entry closes ({@code IdleSchedule}: the drain grace and the hard idle cap) and when a dead
 * backend is started again or its entry gives up ({@code RestartPolicy}: the restart budget).
 */
@NullMarked
package dev.cotenant.gateway.pool;

import org.jspecify.annotations.NullMarked;
