package dev.cotenant.cli.daemon;

import dev.cotenant.cli.daemon.api.ApiHandler;
import dev.cotenant.cli.daemon.api.DaemonProcesses;
import dev.cotenant.cli.daemon.http.HttpGuard;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.sharing.Sharing;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Starts the daemon's HTTP servers (Jetty) on the channels {@link HttpListeners} bound, each at
 * its first connection: {@code api.sock} ({@link ApiSocket}) and the loopback port
 * ({@link HttpSurface}). Both serve one {@link ApiHandler}, made when the first of them starts;
 * {@link #close} cancels its jobs. The daemon makes this object only then too: loading this
 * class loads Jetty's. Thread-safe.
 */
final class HttpStart implements AutoCloseable {
  private final Cotenant cotenant;
  private final Sharing sharing;
  private final ServerDirectory directory;
  private final String token;
  private final DaemonProcesses processes;
  private @Nullable ApiHandler api;
  private volatile @Nullable HttpSurface http;
  private boolean closed;

  HttpStart(Cotenant cotenant, Sharing sharing, ServerDirectory directory, String token, DaemonProcesses processes) {
    this.cotenant = cotenant;
    this.sharing = sharing;
    this.directory = directory;
    this.token = token;
    this.processes = processes;
  }

  private synchronized ApiHandler api() throws IOException {
    if (closed) {
      throw new IOException("the daemon is stopping");
    }
    ApiHandler a = api;
    if (a == null) {
      a = new ApiHandler(cotenant, sharing, directory, new HttpGuard(token), processes);
      api = a;
    }
    return a;
  }

  /** Serves the API on {@code channel}, bound at {@code path}. */
  AutoCloseable apiSocket(Path path, ServerSocketChannel channel) throws IOException {
    return ApiSocket.serve(path, channel, api().unguarded());
  }

  /** Serves MCP, the API and the dashboard on {@code channel}, bound on the loopback. */
  AutoCloseable http(ServerSocketChannel channel) throws IOException {
    HttpSurface h = HttpSurface.start(channel, sharing, directory, token, Map.of(ApiHandler.PATH, api()));
    http = h;
    return h;
  }

  /** Sessions over HTTP now (0 before HTTP has started). */
  int httpSessions() {
    HttpSurface h = http;
    return h == null ? 0 : h.sessions();
  }

  /** Cancels the API's jobs (a measure job running). */
  @Override
  public void close() {
    ApiHandler a;
    synchronized (this) {
      closed = true;
      a = api;
    }
    if (a != null) {
      a.close();
    }
  }
}
