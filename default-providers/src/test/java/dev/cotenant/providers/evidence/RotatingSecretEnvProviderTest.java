package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RotatingSecretEnvProviderTest {
  private final RotatingSecretEnvProvider provider = new RotatingSecretEnvProvider();

  private static final ServerDescription SERVER =
      Handshakes.STDIO.withEnv(
          Map.of(
              "GITHUB_TOKEN", "t",
              "API_KEY", "k",
              "DB_PASSWORD_FILE", "/run/p",
              "LOG_LEVEL", "debug",
              "HOME", "/home/x"));

  private List<String> names(ProviderConfig config, ServerDescription s) {
    List<Finding> found = Handshakes.run(provider, config, s, Optional.empty());
    found.forEach(f -> assertEquals("rotating_secret_env", f.code()));
    found.forEach(f -> assertEquals("rotating_secret_env", f.source()));
    return found.stream().map(Finding::detail).toList();
  }

  @Test
  void oneFindingPerSecretNameInNameOrderWithoutAHandshake() {
    assertEquals(List.of("API_KEY", "DB_PASSWORD_FILE", "GITHUB_TOKEN"), names(ProviderConfig.empty(), SERVER));
  }

  @Test
  void silentForNamesInThePoolIdentityList() {
    ProviderConfig config = ProviderConfig.of(Map.of(CoreSettings.POOL_IDENTITY_ENV, "GITHUB_TOKEN, API_KEY"));
    assertEquals(List.of("DB_PASSWORD_FILE"), names(config, SERVER));
  }

  @Test
  void configuredPatternsReplaceTheDefaults() {
    ProviderConfig config = ProviderConfig.of(Map.of(CoreSettings.SECRET_PATTERNS, "LOG_*"));
    assertEquals(List.of("LOG_LEVEL"), names(config, SERVER));
  }

  @Test
  void matchingIgnoresCase() {
    assertEquals(List.of("github_token"), names(ProviderConfig.empty(), Handshakes.STDIO.withEnv(Map.of("github_token", "t"))));
  }

  @Test
  void noEnvIsSilent() {
    assertEquals(List.of(), names(ProviderConfig.empty(), Handshakes.STDIO));
  }
}
