package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ServerDescription;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NotStdioProviderTest {
  private final NotStdioProvider provider = new NotStdioProvider();

  @Test
  void namedAfterItsCode() {
    assertEquals("not_stdio", provider.name());
  }

  @Test
  void httpServerIsNotStdioWithTheTransportAsDetail() {
    ServerDescription s = ServerDescription.http("remote", "https://example.test/mcp");
    assertEquals(
        List.of(new Finding("not_stdio", "not_stdio", "http")), Handshakes.run(provider, s, Optional.empty()));
  }

  @Test
  void sseServerIsNotStdio() {
    ServerDescription s =
        new ServerDescription(
            "legacy", dev.cotenant.api.Transport.SSE, "", List.of(), Optional.empty(), Map.of(),
            Optional.of("https://example.test/sse"), true);
    assertEquals(List.of(new Finding("not_stdio", "not_stdio", "sse")), Handshakes.run(provider, s, Optional.empty()));
  }

  @Test
  void stdioServerIsSilentWithOrWithoutHandshake() {
    assertEquals(List.of(), Handshakes.run(provider, Handshakes.STDIO, Optional.empty()));
    assertEquals(List.of(), Handshakes.run(provider, Handshakes.with(Map.of(), List.of())));
  }
}
