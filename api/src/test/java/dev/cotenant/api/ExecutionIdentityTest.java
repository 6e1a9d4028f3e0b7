package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The hashing rules of docs/architecture.md. */
class ExecutionIdentityTest {

  private static final SecretPatterns SECRETS = SecretPatterns.defaults();

  private static String envHash(Map<String, String> env, String... poolIdentity) {
    return ExecutionIdentity.envHash(env, SECRETS, Set.of(poolIdentity));
  }

  private static Map<String, String> ordered(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static ExecutionIdentity identity(ServerDescription s, Map<String, String> env, List<String> pool) {
    return ExecutionIdentity.of(s, env, SECRETS, pool, "/usr/bin/srv:1024:1700000000", ExecutionIdentity.PREFLIGHT_SCHEMA);
  }

  @Test
  void envOrderIsIrrelevant() {
    assertEquals(
        envHash(ordered("A", "1", "B", "2", "C", "3")), envHash(ordered("C", "3", "A", "1", "B", "2")));
  }

  @Test
  void aNonSecretValueChangeIsANewIdentity() {
    assertNotEquals(envHash(ordered("LOG_LEVEL", "info")), envHash(ordered("LOG_LEVEL", "debug")));
  }

  @Test
  void secretKeysAreExcluded() {
    assertEquals(
        envHash(ordered("A", "1")),
        envHash(ordered("A", "1", "GITHUB_TOKEN", "ghp_x", "DB_PASSWORD", "p", "OPENAI_API_KEY", "k")));
  }

  @Test
  void aCredentialRotationKeepsTheEnvHashAndTheCacheKey() {
    ServerDescription s = ServerDescription.stdio("gh", "github-mcp");
    ExecutionIdentity before = identity(s, ordered("GITHUB_TOKEN", "old", "A", "1"), List.of());
    ExecutionIdentity after = identity(s, ordered("GITHUB_TOKEN", "new", "A", "1"), List.of());
    assertEquals(before.envHash(), after.envHash());
    assertEquals(before.cacheKey(), after.cacheKey());
    assertEquals(before.ledgerKey(), after.ledgerKey());
  }

  @Test
  void aSecretNamedInThePoolIdentityListCounts() {
    Map<String, String> old = ordered("TENANT_TOKEN", "old", "A", "1");
    Map<String, String> rotated = ordered("TENANT_TOKEN", "new", "A", "1");
    assertNotEquals(envHash(old, "TENANT_TOKEN"), envHash(rotated, "TENANT_TOKEN"));
    assertNotEquals(envHash(ordered("A", "1"), "TENANT_TOKEN"), envHash(old, "TENANT_TOKEN"));
    assertEquals(envHash(ordered("A", "1"), "OTHER_TOKEN"), envHash(old, "OTHER_TOKEN"));
  }

  @Test
  void keyAndValueBoundariesCannotBeShifted() {
    assertNotEquals(envHash(ordered("A", "B=C")), envHash(ordered("A=B", "C")));
    assertNotEquals(envHash(ordered("A", "1", "B", "")), envHash(ordered("A", "1")));
  }

  @Test
  void oneArgWithASpaceDiffersFromTwoArgs() {
    assertNotEquals(
        ExecutionIdentity.commandArgsHash(ServerDescription.stdio("s", "srv", "a b")),
        ExecutionIdentity.commandArgsHash(ServerDescription.stdio("s", "srv", "a", "b")));
  }

  @Test
  void noSplitOfCommandAndArgsCollides() {
    List<ServerDescription> variants =
        List.of(
            ServerDescription.stdio("s", "srv", "ab"),
            ServerDescription.stdio("s", "srv", "a", "b"),
            ServerDescription.stdio("s", "srv", "a", "b", ""),
            ServerDescription.stdio("s", "srv", "", "a", "b"),
            ServerDescription.stdio("s", "srva", "b"),
            ServerDescription.stdio("s", "srv a", "b"),
            ServerDescription.stdio("s", "srv", "a", "b").withCwd(Optional.of("")),
            ServerDescription.stdio("s", "srv", "a").withCwd(Optional.of("b")));
    long distinct = variants.stream().map(ExecutionIdentity::commandArgsHash).distinct().count();
    assertEquals(variants.size() - 1, distinct, "only an empty cwd equals no cwd");
    assertEquals(
        ExecutionIdentity.commandArgsHash(variants.get(1)), ExecutionIdentity.commandArgsHash(variants.get(6)));
  }

  @Test
  void theCwdAndTheTransportCount() {
    ServerDescription s = ServerDescription.stdio("s", "srv", "a");
    assertNotEquals(
        ExecutionIdentity.commandArgsHash(s),
        ExecutionIdentity.commandArgsHash(s.withCwd(Optional.of("/srv"))));
    assertNotEquals(
        ExecutionIdentity.commandArgsHash(ServerDescription.http("s", "http://a")),
        ExecutionIdentity.commandArgsHash(
            new ServerDescription(
                "s", Transport.SSE, "", List.of(), Optional.empty(), Map.of(), Optional.of("http://a"), true)));
  }

  @Test
  void hashesAreLowerCaseHexSha256() {
    assertEquals(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ExecutionIdentity.sha256(""));
    assertTrue(envHash(ordered("A", "1")).matches("[0-9a-f]{64}"));
  }

  @Test
  void theCacheKeyIsTheFiveFieldsNulJoined_andParsesBack() {
    ExecutionIdentity id = new ExecutionIdentity("srv", "c", "e", "unknown", "preflight-1");
    assertEquals("srv\0c\0e\0unknown\0preflight-1", id.cacheKey());
    assertEquals(id, ExecutionIdentity.parseCacheKey(id.cacheKey()));
  }

  @Test
  void aCacheKeyWithTheWrongFieldCountIsRefused() {
    IllegalArgumentException ex =
        assertThrows(IllegalArgumentException.class, () -> ExecutionIdentity.parseCacheKey("a\0b\0c\0d"));
    assertEquals("an identity key has 5 NUL-separated fields; this one has 4", ex.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ExecutionIdentity.parseCacheKey("a\0b\0c\0d\0e\0f"));
  }

  @Test
  void theLedgerKeyExcludesTheSchema() {
    ExecutionIdentity v1 = new ExecutionIdentity("srv", "c", "e", "b", "preflight-1");
    ExecutionIdentity v2 = new ExecutionIdentity("srv", "c", "e", "b", "preflight-2");
    assertNotEquals(v1.cacheKey(), v2.cacheKey());
    assertEquals(v1.ledgerKey(), v2.ledgerKey());
    assertEquals(ExecutionIdentity.sha256("srv\0c\0e\0b"), v1.ledgerKey());
  }

  @Test
  void theLedgerKeyChangesWithEveryOtherField() {
    ExecutionIdentity base = new ExecutionIdentity("srv", "c", "e", "b", "s");
    List<ExecutionIdentity> changed =
        List.of(
            new ExecutionIdentity("srv2", "c", "e", "b", "s"),
            new ExecutionIdentity("srv", "c2", "e", "b", "s"),
            new ExecutionIdentity("srv", "c", "e2", "b", "s"),
            new ExecutionIdentity("srv", "c", "e", ExecutionIdentity.UNKNOWN_BINARY, "s"));
    for (ExecutionIdentity other : changed) {
      assertNotEquals(base.ledgerKey(), other.ledgerKey(), other::toString);
    }
  }

  @Test
  void ofCombinesTheParts() {
    ServerDescription s = ServerDescription.stdio("gh", "github-mcp", "--stdio");
    ExecutionIdentity id = identity(s, ordered("A", "1"), List.of());
    assertEquals("gh", id.serverName());
    assertEquals(ExecutionIdentity.commandArgsHash(s), id.commandArgsHash());
    assertEquals(envHash(ordered("A", "1")), id.envHash());
    assertEquals("/usr/bin/srv:1024:1700000000", id.binaryVersion());
    assertEquals(ExecutionIdentity.PREFLIGHT_SCHEMA, id.schema());
  }

  /**
   * Two HTTP servers that differ only by URL are two launches. Kills the removed
   * appendField(url) in ExecutionIdentity.commandArgsHash (VoidMethodCallMutator, line 82).
   */
  @Test
  void theUrlIsPartOfTheCommandIdentity() {
    assertNotEquals(
        ExecutionIdentity.commandArgsHash(ServerDescription.http("s", "https://a.example/mcp")),
        ExecutionIdentity.commandArgsHash(ServerDescription.http("s", "https://b.example/mcp")));
  }

  /**
   * The same value under two different variable names is two environments. Kills the removed
   * appendField(key) in ExecutionIdentity.envHash (VoidMethodCallMutator, line 94).
   */
  @Test
  void theVariableNameIsPartOfTheEnvIdentity() {
    assertNotEquals(envHash(ordered("MODE", "fast")), envHash(ordered("PROFILE", "fast")));
  }
}
