package dev.cotenant.gateway.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pool key: what is in the canonical launch configuration, what is not, and its hash. */
class PoolKeyTest {
  private static ServerDescription server(Map<String, String> env) {
    return new ServerDescription("files", Transport.STDIO, "node", List.of("server.js", "--port", "0"),
        Optional.of("/srv/work"), env, Optional.empty(), true);
  }

  private static final ServerDescription FILES = server(Map.of("BETA", "two", "ALPHA", "1"));

  @Test
  void theCanonicalConfigurationHasItsKeysInAFixedOrder() {
    assertEquals("{\"transport\":\"stdio\",\"command\":\"node\",\"args\":[\"server.js\",\"--port\",\"0\"],"
        + "\"cwd\":\"/srv/work\",\"env\":[[\"ALPHA\",\"1\"],[\"BETA\",\"two\"]],\"url\":null,\"headers\":[],"
        + "\"oauth\":null}", PoolKey.canonicalJson(FILES));
    assertEquals("{\"transport\":\"http\",\"command\":\"\",\"args\":[],\"cwd\":null,\"env\":[],"
        + "\"url\":\"https://example.test/mcp\",\"headers\":[],\"oauth\":null}",
        PoolKey.canonicalJson(ServerDescription.http("remote", "https://example.test/mcp")));
  }

  @Test
  void theFingerprintIsTheFirst16HexOfTheSha256OfTheCanonicalConfiguration() {
    // Computed independently (sha256 of the canonical text above, first 8 bytes in hex).
    assertEquals(new PoolKey("files", "d05024bc7fb50518"), PoolKey.of(FILES));
    assertEquals(new PoolKey("remote", "3e258c1cc137762d"), PoolKey.of(ServerDescription.http("remote", "https://example.test/mcp")));
  }

  @Test
  void theConnectionIdIsTheNameAndTheFingerprint() {
    assertEquals("files::d05024bc7fb50518", PoolKey.of(FILES).connectionId());
  }

  @Test
  void envOrderDoesNotMatter() {
    Map<String, String> reversed = new LinkedHashMap<>();
    reversed.put("BETA", "two");
    reversed.put("ALPHA", "1");
    Map<String, String> ordered = new LinkedHashMap<>();
    ordered.put("ALPHA", "1");
    ordered.put("BETA", "two");
    assertEquals(PoolKey.of(server(ordered)), PoolKey.of(server(reversed)));
  }

  @Test
  void enabledIsNotPartOfTheKey() {
    assertEquals(PoolKey.of(FILES), PoolKey.of(FILES.withEnabled(false)));
  }

  @Test
  void everyLaunchFieldIsPartOfTheKey() {
    PoolKey base = PoolKey.of(FILES);
    assertNotEquals(base, PoolKey.of(FILES.withEnv(Map.of("ALPHA", "1", "BETA", "three"))));
    assertNotEquals(base, PoolKey.of(FILES.withEnv(Map.of("ALPHA", "1"))));
    assertNotEquals(base, PoolKey.of(FILES.withCwd(Optional.empty())));
    assertNotEquals(base, PoolKey.of(new ServerDescription("files", Transport.STDIO, "node", List.of("server.js", "--port", "1"),
        Optional.of("/srv/work"), FILES.env(), Optional.empty(), true)));
    assertNotEquals(base, PoolKey.of(new ServerDescription("files", Transport.STDIO, "deno", FILES.args(),
        Optional.of("/srv/work"), FILES.env(), Optional.empty(), true)));
    assertNotEquals(PoolKey.of(ServerDescription.http("remote", "https://a.test/mcp")),
        PoolKey.of(ServerDescription.http("remote", "https://b.test/mcp")));
    assertNotEquals(PoolKey.of(ServerDescription.http("remote", "https://a.test/mcp")),
        PoolKey.of(new ServerDescription("remote", Transport.SSE, "", List.of(), Optional.empty(), Map.of(),
            Optional.of("https://a.test/mcp"), true)));
  }

  @Test
  void argumentOrderMatters() {
    ServerDescription swapped = new ServerDescription("files", Transport.STDIO, "node", List.of("--port", "0", "server.js"),
        Optional.of("/srv/work"), FILES.env(), Optional.empty(), true);
    assertNotEquals(PoolKey.of(FILES), PoolKey.of(swapped));
  }

  @Test
  void theNameIsInTheKeyButNotInTheFingerprint() {
    ServerDescription a = ServerDescription.stdio("a", "node", "x.js");
    ServerDescription b = ServerDescription.stdio("b", "node", "x.js");
    assertEquals(PoolKey.of(a).fingerprint(), PoolKey.of(b).fingerprint());
    assertNotEquals(PoolKey.of(a), PoolKey.of(b));
  }

  @Test
  void aDedicatedKeyIsPerSessionAndNeverTheSharedOne() {
    PoolKey s1 = PoolKey.dedicated(FILES, "s1");
    assertEquals(s1, PoolKey.dedicated(FILES, "s1"));
    assertNotEquals(s1, PoolKey.dedicated(FILES, "s2"));
    assertNotEquals(s1, PoolKey.of(FILES));
    assertEquals("files", s1.serverName());
  }

  @Test
  void aMalformedFingerprintIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PoolKey("files", "D05024BC7FB50518"));
    assertThrows(IllegalArgumentException.class, () -> new PoolKey("files", "d05024bc"));
  }

  @Test
  void sharedKeysOfDifferentClientShapesDifferAndAnEmptyShapeIsThePlainSharedKey() {
    ServerDescription server = ServerDescription.stdio("calc", "node", "calc.js");
    PoolKey older = PoolKey.shared(server, "{\"protocolVersion\":\"2025-06-18\"}");
    PoolKey newer = PoolKey.shared(server, "{\"protocolVersion\":\"2025-11-25\"}");
    org.junit.jupiter.api.Assertions.assertNotEquals(older, newer);
    org.junit.jupiter.api.Assertions.assertNotEquals(PoolKey.of(server), older);
    org.junit.jupiter.api.Assertions.assertEquals(PoolKey.of(server), PoolKey.shared(server, ""));
    org.junit.jupiter.api.Assertions.assertEquals(older,
        PoolKey.of(server, "any-session", Placement.SHARED, "{\"protocolVersion\":\"2025-06-18\"}"));
    org.junit.jupiter.api.Assertions.assertEquals(PoolKey.dedicated(server, "s"),
        PoolKey.of(server, "s", Placement.DEDICATED, "{\"protocolVersion\":\"2025-06-18\"}"));
  }
}
