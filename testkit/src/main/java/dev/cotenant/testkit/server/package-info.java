/**
 * A scriptable fake MCP server over stdio: {@link dev.cotenant.testkit.server.FakeServer} builds
 * a script and the {@link dev.cotenant.api.ServerDescription} that runs it in a child JVM
 * ({@link dev.cotenant.testkit.server.FakeMcpServer}). The only package of the kit that reads or
 * writes JSON.
 */
@NullMarked
package dev.cotenant.testkit.server;

import org.jspecify.annotations.NullMarked;
