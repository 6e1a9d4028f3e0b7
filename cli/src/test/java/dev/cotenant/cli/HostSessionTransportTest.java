package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.SessionTransportProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A host's session transport is how every server is started: the pre-flight of {@code measure}
 * and {@code probe-stateless} both open their sessions through it, not through the default stdio
 * code. The fake records each server it opened and with which label, then hands the work to the
 * transport discovery would have chosen, so the commands still complete for real.
 */
class HostSessionTransportTest extends SpawningCliTest {

  /** Records every open, then delegates. */
  static final class RecordingSessions implements SessionTransportProvider, SessionTransport {
    final List<String> opened = new CopyOnWriteArrayList<>();
    private final SessionTransport real = Cotenant.builder().build().sessionTransport();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public SessionTransport create(ProviderContext context) {
      return this;
    }

    @Override
    public ServerSession open(ServerDescription server, String label, ServerMessageHandler handler)
        throws SessionException, InterruptedException {
      opened.add(server.name() + "/" + label);
      return real.open(server, label, handler);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    cli.writeProbeServers("mcp.json", List.of("echo"), Map.of());
  }

  @Test
  void thePreflightAndTheProbeBothOpenTheirSessionsThroughTheHostsTransport() {
    RecordingSessions sessions = new RecordingSessions();
    cli.fakePreflight = false;
    cli.runtime = b -> b.sessionTransport(sessions);

    CliHarness.Result measured = cli.run("measure", "mcp.json");
    assertEquals(0, measured.code(), measured.err() + measured.out());
    assertEquals(2, sessions.opened.size(), sessions.opened.toString());
    assertTrue(sessions.opened.stream().allMatch(o -> o.startsWith("echo/")), sessions.opened.toString());

    CliHarness.Result probed = cli.run("probe-stateless", "echo", "--tool", "remember",
        "--args", "{\"target\": \"{marker}\"}", "mcp.json");
    assertEquals(0, probed.code(), probed.err() + probed.out());
    assertEquals(3, sessions.opened.size(), sessions.opened.toString());
    assertEquals("echo/probe", sessions.opened.get(2));
  }
}
