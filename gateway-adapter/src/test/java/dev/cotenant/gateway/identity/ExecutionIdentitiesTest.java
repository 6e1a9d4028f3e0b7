package dev.cotenant.gateway.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The IO half of the launch identity (docs/architecture.md): finding and fingerprinting the executable. */
class ExecutionIdentitiesTest {
  @TempDir Path dir;
  Path bin;
  Path tool;

  @BeforeEach
  void tool() throws IOException {
    bin = Files.createDirectories(dir.resolve("bin"));
    tool = bin.resolve("mcp-tool");
    Files.writeString(tool, "#!/bin/sh\n");
    tool.toFile().setExecutable(true);
    Files.setLastModifiedTime(tool, FileTime.fromMillis(1_700_000_000_000L));
  }

  private ExecutionIdentities identities() {
    return ExecutionIdentities.fromConfig(ProviderConfig.empty(), Map.of("PATH", "/nonexistent:" + bin));
  }

  @Test
  void aBareCommandIsSearchedOnThePath() throws IOException {
    ServerDescription s = ServerDescription.stdio("srv", "mcp-tool");
    ExecutionIdentity id = identities().identify(s);
    assertEquals(tool.toRealPath() + "|10|2023-11-14T22:13:20Z", id.binaryVersion());
    assertEquals(ExecutionIdentity.PREFLIGHT_SCHEMA, id.schema());
    assertEquals(ExecutionIdentity.commandArgsHash(s), id.commandArgsHash());
  }

  @Test
  void theServersOwnPathWinsOverTheHostPath() {
    ServerDescription s = ServerDescription.stdio("srv", "mcp-tool").withEnv(Map.of("PATH", "/nonexistent"));
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, identities().identify(s).binaryVersion());
  }

  @Test
  void anAbsoluteOrCwdRelativeCommandIsUsedAsGiven() throws IOException {
    ExecutionIdentities ids = ExecutionIdentities.fromConfig(ProviderConfig.empty(), Map.of());
    assertTrue(ids.identify(ServerDescription.stdio("srv", tool.toString())).binaryVersion().startsWith(tool.toRealPath().toString()));
    ServerDescription rel = ServerDescription.stdio("srv", "bin/mcp-tool").withCwd(Optional.of(dir.toString()));
    assertTrue(ids.identify(rel).binaryVersion().startsWith(tool.toRealPath().toString()));
  }

  @Test
  void anUnreadableOrMissingExecutableIsUnknown() {
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, identities().identify(ServerDescription.stdio("srv", "no-such-tool")).binaryVersion());
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, identities().identify(ServerDescription.stdio("srv", dir.resolve("missing").toString())).binaryVersion());
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, identities().identify(ServerDescription.http("web", "https://example.test/mcp")).binaryVersion());
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, ExecutionIdentities.fingerprint(Optional.of(dir.resolve("gone"))));
    // Kills fingerprint returning "" for a path that is not a regular file (EmptyObjectReturnValsMutator).
    assertEquals(ExecutionIdentity.UNKNOWN_BINARY, ExecutionIdentities.fingerprint(Optional.of(bin)));
  }

  @Test
  void anInPlaceUpgradeChangesTheFingerprint() throws IOException {
    ServerDescription s = ServerDescription.stdio("srv", "mcp-tool");
    ExecutionIdentity before = identities().identify(s);
    Files.writeString(tool, "#!/bin/sh\necho new\n");
    Files.setLastModifiedTime(tool, FileTime.fromMillis(1_700_000_000_000L));
    ExecutionIdentity sizeChanged = identities().identify(s);
    assertNotEquals(before.binaryVersion(), sizeChanged.binaryVersion());
    Files.setLastModifiedTime(tool, FileTime.fromMillis(1_800_000_000_000L));
    assertNotEquals(sizeChanged.binaryVersion(), identities().identify(s).binaryVersion());
    assertNotEquals(before.ledgerKey(), sizeChanged.ledgerKey());
    assertNotEquals(before.cacheKey(), sizeChanged.cacheKey());
  }

  @Test
  void aCredentialRotationIsNotANewServer() {
    ServerDescription a = ServerDescription.stdio("srv", "mcp-tool").withEnv(Map.of("API_TOKEN", "one", "MODE", "x"));
    ServerDescription b = a.withEnv(Map.of("API_TOKEN", "two", "MODE", "x"));
    ServerDescription c = a.withEnv(Map.of("API_TOKEN", "two", "MODE", "y"));
    assertEquals(identities().identify(a).envHash(), identities().identify(b).envHash());
    assertNotEquals(identities().identify(a).envHash(), identities().identify(c).envHash());
  }

  @Test
  void secretPatternsAndThePoolIdentityListComeFromConfiguration() {
    ExecutionIdentities ids =
        ExecutionIdentities.fromConfig(
            ProviderConfig.of(
                Map.of(CoreSettings.SECRET_PATTERNS, "*_PIN, SESSION*", CoreSettings.POOL_IDENTITY_ENV, "TENANT_PIN")),
            Map.of());
    assertEquals(List.of("*_PIN", "SESSION*"), ids.secrets().globs());
    assertEquals(List.of("TENANT_PIN"), ids.poolIdentityEnv());
    ServerDescription s = ServerDescription.stdio("srv", "x");
    // SESSION_ID is secret now: rotating it is the same server.
    assertEquals(
        ids.identify(s.withEnv(Map.of("SESSION_ID", "1"))).envHash(), ids.identify(s.withEnv(Map.of("SESSION_ID", "2"))).envHash());
    // TENANT_PIN looks secret but is named in the pool-identity list: it counts.
    assertNotEquals(
        ids.identify(s.withEnv(Map.of("TENANT_PIN", "1"))).envHash(), ids.identify(s.withEnv(Map.of("TENANT_PIN", "2"))).envHash());
    // API_TOKEN is no longer secret under these patterns.
    assertNotEquals(
        ids.identify(s.withEnv(Map.of("API_TOKEN", "1"))).envHash(), ids.identify(s.withEnv(Map.of("API_TOKEN", "2"))).envHash());
  }

  @Test
  void aBlankSecretPatternIsRefusedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ExecutionIdentities.fromConfig(ProviderConfig.of(Map.of(CoreSettings.SECRET_PATTERNS, "*_KEY,,")), Map.of()));
    assertTrue(e.getMessage().contains(CoreSettings.SECRET_PATTERNS), e.getMessage());
  }

  @Test
  void theTransportIsPartOfTheIdentity() {
    ServerDescription stdio = ServerDescription.stdio("srv", "mcp-tool");
    ServerDescription other =
        new ServerDescription("srv", Transport.HTTP, "mcp-tool", List.of(), Optional.empty(), Map.of(), Optional.empty(), true);
    assertNotEquals(identities().identify(stdio).commandArgsHash(), identities().identify(other).commandArgsHash());
  }

  @Test
  void editingTheScriptAnInterpreterRunsMakesANewIdentity() throws IOException {
    Path script = dir.resolve("server.py");
    Files.writeString(script, "print('v1')\n");
    Files.setLastModifiedTime(script, FileTime.fromMillis(1_700_000_000_000L));
    ServerDescription s = new ServerDescription("py", dev.cotenant.api.Transport.STDIO, "mcp-tool",
        List.of("-u", script.toString()), Optional.empty(), Map.of(), Optional.empty(), true);
    ExecutionIdentity before = identities().identify(s);
    assertEquals(tool.toRealPath() + "|10|2023-11-14T22:13:20Z;" + script.toRealPath() + "|12|2023-11-14T22:13:20Z",
        before.binaryVersion());

    Files.writeString(script, "print('v2: leaks')\n");
    Files.setLastModifiedTime(script, FileTime.fromMillis(1_700_000_060_000L));
    ExecutionIdentity after = identities().identify(s);

    assertNotEquals(before.cacheKey(), after.cacheKey());
    assertNotEquals(before.ledgerKey(), after.ledgerKey());
  }

  @Test
  void aRelativeScriptIsFoundInTheServersWorkingDirectoryAndTheCountIsBounded() throws IOException {
    List<String> args = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Files.writeString(dir.resolve("f" + i + ".js"), "x");
      args.add("f" + i + ".js");
    }
    ServerDescription s = new ServerDescription("node", dev.cotenant.api.Transport.STDIO, "mcp-tool", args,
        Optional.of(dir.toString()), Map.of(), Optional.empty(), true);
    List<Path> files = identities().argumentFiles(s);
    assertEquals(ExecutionIdentities.MAX_ARGUMENT_FILES, files.size());
    assertEquals(dir.resolve("f0.js"), files.get(0));
    assertEquals(List.of(), identities().argumentFiles(
        ServerDescription.stdio("flags", "mcp-tool", "--port", "8080", "not-a-file")), "flags and missing paths are not files");
  }
}
