package dev.cotenant.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.examples.provider.HostManagedClassifierProvider;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How to test a custom provider: directly, and as the runtime discovers it. */
class HostManagedClassifierProviderTest {
  private static final ServerDescription DESKTOP = ServerDescription.stdio("desktop-control", "desktop-mcp");
  private static final ServerDescription OTHER = ServerDescription.stdio("notes", "notes-mcp");

  @Test
  void knowsOnlyTheConfiguredServers() {
    ManagedServerClassifier c =
        new HostManagedClassifierProvider()
            .create(new ProviderContext(ProviderConfig.of(Map.of(HostManagedClassifierProvider.SERVERS_KEY, "desktop-control")), Path.of("r")));
    assertEquals(Optional.of(HostManagedClassifierProvider.REASON), c.sessionBoundReason(DESKTOP));
    assertEquals(Optional.empty(), c.sessionBoundReason(OTHER));
  }

  @Test
  void withoutConfigurationItKnowsNoServer() {
    ManagedServerClassifier c =
        new HostManagedClassifierProvider().create(new ProviderContext(ProviderConfig.empty(), Path.of("r")));
    assertEquals(Optional.empty(), c.sessionBoundReason(DESKTOP));
  }

  @Test
  void theRuntimeDiscoversItThroughItsServicesRegistration() {
    Cotenant cotenant =
        Cotenant.builder().config(Map.of(HostManagedClassifierProvider.SERVERS_KEY, "desktop-control")).build();
    assertTrue(cotenant.classifierNames().contains("host-managed"), cotenant.classifierNames().toString());
    List<Finding> findings = cotenant.findings(DESKTOP, Optional.empty());
    assertEquals(
        new Finding("host-managed", "session_bound_by_construction", HostManagedClassifierProvider.REASON),
        findings.get(0));
  }
}
