package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The secret-name globs of docs/architecture.md. */
class SecretPatternsTest {

  private final SecretPatterns defaults = SecretPatterns.defaults();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "GITHUB_TOKEN",
        "_TOKEN",
        "CLIENT_SECRET",
        "OPENAI_API_KEY",
        "DB_PASSWORD",
        "PASSWORD",
        "MY_PASSWORD_FILE",
        "AWS_CREDENTIALS",
        "CREDENTIAL",
        "github_token",
        "Db_Password"
      })
  void defaultGlobsCatchSecretNames(String name) {
    assertTrue(defaults.isSecret(name), name);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"PATH", "HOME", "TOKEN", "TOKEN_PATH", "GITHUB_TOKENS", "KEYBOARD", "API_KEYS", "SECRETARY", "LOG_LEVEL", ""})
  void defaultGlobsLeaveOrdinaryNamesAlone(String name) {
    assertFalse(defaults.isSecret(name), name);
  }

  @Test
  void theDefaultGlobsAreTheDesignList() {
    assertEquals(List.of("*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*", "*CREDENTIAL*"), defaults.globs());
  }

  @Test
  void aGlobWithoutAStarMatchesTheWholeNameOnly() {
    SecretPatterns p = SecretPatterns.of(List.of("SESSION"));
    assertTrue(p.isSecret("SESSION"));
    assertTrue(p.isSecret("session"));
    assertFalse(p.isSecret("SESSION_ID"));
    assertFalse(p.isSecret("MY_SESSION"));
  }

  @Test
  void aStarInTheMiddleMatchesAnyRunIncludingNone() {
    SecretPatterns p = SecretPatterns.of(List.of("A*Z"));
    assertTrue(p.isSecret("AZ"));
    assertTrue(p.isSecret("A_ANYTHING_Z"));
    assertFalse(p.isSecret("A_ANYTHING_Z_"));
  }

  @Test
  void regexCharactersInAGlobAreLiteral() {
    SecretPatterns p = SecretPatterns.of(List.of("A.B*", "X+?"));
    assertTrue(p.isSecret("A.B_1"));
    assertFalse(p.isSecret("AxB_1"));
    assertTrue(p.isSecret("X+?"));
    assertFalse(p.isSecret("XX"));
  }

  @Test
  void customGlobsReplaceTheDefaults() {
    SecretPatterns p = SecretPatterns.of(List.of("*_PAT"));
    assertTrue(p.isSecret("GITLAB_PAT"));
    assertFalse(p.isSecret("GITHUB_TOKEN"));
  }

  @Test
  void aBlankGlobIsRefusedWithAMessage() {
    IllegalArgumentException ex =
        assertThrows(IllegalArgumentException.class, () -> SecretPatterns.of(List.of("*_TOKEN", "  ")));
    assertEquals("a secret pattern must not be blank", ex.getMessage());
  }

  @Test
  void noGlobsMeansNoSecrets() {
    assertFalse(SecretPatterns.of(List.of()).isSecret("GITHUB_TOKEN"));
  }

  @Test
  void aNameWithALineBreakIsStillMatchedWhole() {
    assertTrue(defaults.isSecret("ODD\nNAME_TOKEN"));
    assertTrue(defaults.isSecret("MY\nPASSWORD\nX"));
  }
}
