package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.Finding;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CallerIdentityProviderTest {
  private final CallerIdentityProvider provider = new CallerIdentityProvider();

  private static Map<String, ?> experimental(String... keys) {
    Map<String, Object> exp = new java.util.TreeMap<>();
    for (String k : keys) {
      exp.put(k, Map.of());
    }
    return Map.of("experimental", exp);
  }

  @Test
  void defaultKeyIsRecognisedWithTheKeyAsDetail() {
    assertEquals(
        List.of(Finding.of("declares_caller_identity", dev.cotenant.api.ReasonCode.DECLARES_CALLER_IDENTITY,
            "cotenant.caller-identity")),
        Handshakes.run(provider, Handshakes.with(experimental("cotenant.caller-identity"), List.of())));
  }

  @Test
  void unrecognisedExperimentalKeyIsSilent() {
    assertEquals(List.of(), Handshakes.run(provider, Handshakes.with(experimental("acme.caller"), List.of())));
  }

  @Test
  void theKeyAsATopLevelCapabilityIsNotADeclaration() {
    assertEquals(
        List.of(),
        Handshakes.run(provider, Handshakes.with(Map.of("cotenant.caller-identity", Map.of()), List.of())));
  }

  @Test
  void configuredKeysAreAddedToTheDefault() {
    ProviderConfig config = ProviderConfig.of(Map.of(CoreSettings.CALLER_IDENTITY_KEYS, " acme.caller , x.who"));
    List<Finding> found =
        Handshakes.run(
            provider, config, Handshakes.STDIO,
            Optional.of(Handshakes.with(experimental("acme.caller", "cotenant.caller-identity", "other"), List.of())));
    assertEquals(
        List.of("acme.caller", "cotenant.caller-identity"),
        found.stream().map(Finding::detail).toList());
  }

  @Test
  void silentWithoutAHandshake() {
    assertEquals(List.of(), Handshakes.run(provider, Handshakes.STDIO, Optional.empty()));
  }
}
