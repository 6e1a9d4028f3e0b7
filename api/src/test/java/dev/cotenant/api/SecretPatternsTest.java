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

  /** Under exactly {@code globs}, every name of {@code secret} is a secret and none of {@code notSecret} is. */
  private static void assertSecrets(List<String> globs, List<String> secret, List<String> notSecret) {
    SecretPatterns p = SecretPatterns.of(globs);
    secret.forEach(name -> assertTrue(p.isSecret(name), name));
    notSecret.forEach(name -> assertFalse(p.isSecret(name), name));
  }

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
    assertSecrets(List.of("SESSION"), List.of("SESSION", "session"), List.of("SESSION_ID", "MY_SESSION"));
  }

  @Test
  void aStarInTheMiddleMatchesAnyRunIncludingNone() {
    assertSecrets(List.of("A*Z"), List.of("AZ", "A_ANYTHING_Z"), List.of("A_ANYTHING_Z_"));
  }

  @Test
  void regexCharactersInAGlobAreLiteral() {
    assertSecrets(List.of("A.B*", "X+?"), List.of("A.B_1", "X+?"), List.of("AxB_1", "XX"));
  }

  @Test
  void customGlobsReplaceTheDefaults() {
    assertSecrets(List.of("*_PAT"), List.of("GITLAB_PAT"), List.of("GITHUB_TOKEN"));
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
