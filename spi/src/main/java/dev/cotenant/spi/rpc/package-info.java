/**
 * The one JSON-RPC 2.0 vocabulary every module speaks: a message is read and classified once, as a
 * {@link dev.cotenant.spi.rpc.RpcMessage} (request, notification or response), its id is a
 * {@link dev.cotenant.spi.rpc.RequestId} with one equality rule, its errors carry codes from the
 * one table {@link dev.cotenant.spi.rpc.ErrorCode}, and envelopes are built only by
 * {@link dev.cotenant.spi.rpc.Envelope}. Messages are plain JSON values ({@code Map},
 * {@code List}, {@code String}, {@code Number}, {@code Boolean}, and {@link dev.cotenant.api.Json#NULL}
 * or Java {@code null} for JSON {@code null}); parsing and writing JSON text stays with the module
 * that owns the bytes. {@link dev.cotenant.spi.rpc.ListingPager} is the one paging rule of an MCP
 * listing (items, next cursor, loop, bounds), shared by the pre-flight and the probe.
 *
 * <p>An architecture rule keeps envelope building here: no other main class names the
 * {@code "jsonrpc"} member.
 */
@NullMarked
package dev.cotenant.spi.rpc;

import org.jspecify.annotations.NullMarked;
