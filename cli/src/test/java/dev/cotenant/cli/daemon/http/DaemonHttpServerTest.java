package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * The daemon's HTTP server around an endpoint it is handed (a mock here): the port's range, and
 * what its close ends. Mutants of {@link DaemonHttpServer}: the port's upper bound at
 * {@code >=}, and {@code close} without the endpoint's close or without Jetty's stop. A start
 * that cannot bind leaves no thread either way: Jetty stops what it started when its own start
 * fails, so {@code start}'s stop on that path is a second guard.
 */
class DaemonHttpServerTest {
  private static long httpThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(DaemonHttpServer.THREAD_PREFIX)).count();
  }

  private static void awaitThreads(long count, String what) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (httpThreads() > count) {
      assertTrue(System.nanoTime() < deadline, what);
      Thread.sleep(20);
    }
  }

  @Test
  void aPortIsFrom0To65535() {
    McpHttpEndpoint endpoint = mock(McpHttpEndpoint.class);
    new DaemonHttpServer(endpoint, 65_535);
    new DaemonHttpServer(endpoint, 0);
    IllegalArgumentException over = assertThrows(IllegalArgumentException.class, () -> new DaemonHttpServer(endpoint, 65_536));
    assertEquals("the HTTP port must be 0 to 65535, got 65536", over.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new DaemonHttpServer(endpoint, -1));
  }

  @Test
  void closingClosesTheEndpointAndEndsTheServersThreads() throws Exception {
    long before = httpThreads();
    McpHttpEndpoint endpoint = mock(McpHttpEndpoint.class);
    DaemonHttpServer server = new DaemonHttpServer(endpoint, 0);
    server.start();
    assertTrue(server.port() > 0);
    assertTrue(httpThreads() > before, "the server runs threads of its own");
    server.close();
    verify(endpoint).close();
    awaitThreads(before, "the server's threads outlived its close");
  }

  /** A chosen port is the one bound. Mutant: the connector without {@code setPort} (a free port taken). */
  @Test
  void aChosenPortIsTheOneBound() throws Exception {
    int free;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      free = probe.getLocalPort();
    }
    DaemonHttpServer server = new DaemonHttpServer(mock(McpHttpEndpoint.class), free);
    try {
      server.start();
      assertEquals(free, server.port());
    } finally {
      server.close();
    }
  }

  @Test
  void aStartThatCannotBindLeavesNoThreadRunning() throws Exception {
    long before = httpThreads();
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      DaemonHttpServer server = new DaemonHttpServer(mock(McpHttpEndpoint.class), busy.getLocalPort());
      assertThrows(java.io.IOException.class, server::start);
    }
    awaitThreads(before, "a failed start left the server's threads running");
  }
}
