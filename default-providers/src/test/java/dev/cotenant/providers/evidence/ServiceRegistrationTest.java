package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Assessor;
import dev.cotenant.api.Evidence;
import dev.cotenant.api.Finding;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.providers.classifier.EmptyClassifierProvider;
import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.providers.session.StdioSessionTransportProvider;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.spi.SessionTransportProvider;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Every default provider loads through the real {@link ServiceLoader} from this module's registrations. */
class ServiceRegistrationTest {
  private static final ProviderContext CONTEXT = new ProviderContext(ProviderConfig.empty(), Path.of("unused"));

  private static final Map<String, Class<?>> EXPECTED_SOURCES =
      Map.of(
          "not_stdio", NotStdioProvider.class,
          "declares_caller_identity", CallerIdentityProvider.class,
          "degrades_when_shared", DegradesWhenSharedProvider.class,
          "rotating_secret_env", RotatingSecretEnvProvider.class,
          "all_tools_read_only", AllToolsReadOnlyProvider.class,
          "no_tool_annotations", NoToolAnnotationsProvider.class,
          "no_tools_listed", NoToolsListedProvider.class,
          "registered_shared", RegisteredSharedProvider.class,
          "statelessness_probe_passed", StatelessnessProbePassedProvider.class);

  @Test
  void everyDefaultEvidenceSourceIsRegisteredOnceUnderItsCode() {
    Map<String, List<Class<?>>> byName = new HashMap<>();
    for (EvidenceSourceProvider p : ServiceLoader.load(EvidenceSourceProvider.class)) {
      byName.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(p.getClass());
      assertTrue(ReasonCode.fromWire(p.name()).isPresent(), "a default source is named by its code: " + p.name());
    }
    EXPECTED_SOURCES.forEach(
        (name, type) -> assertEquals(List.of(type), byName.get(name), "registrations of " + name));
  }

  @Test
  void theEmptyClassifierIsRegisteredAndKnowsNoServer() {
    List<ManagedServerClassifierProvider> found = new ArrayList<>();
    ServiceLoader.load(ManagedServerClassifierProvider.class).forEach(found::add);
    ManagedServerClassifierProvider empty =
        found.stream().filter(p -> p.name().equals("empty")).findFirst().orElseThrow();
    assertEquals(EmptyClassifierProvider.class, empty.getClass());
    assertEquals(1, found.stream().filter(p -> p.name().equals("empty")).count());
    assertEquals(Optional.empty(), empty.create(CONTEXT).sessionBoundReason(ServerDescription.stdio("x", "node")));
    assertEquals(Optional.empty(), empty.create(CONTEXT).sessionBoundReason(ServerDescription.http("y", "https://h")));
  }

  @Test
  void theStdioSessionTransportIsRegisteredOnceAndCreatedFromTheConfigurationAlone() {
    List<SessionTransportProvider> found = new ArrayList<>();
    ServiceLoader.load(SessionTransportProvider.class).forEach(found::add);
    List<SessionTransportProvider> stdio = found.stream().filter(p -> p.name().equals("stdio")).toList();
    assertEquals(1, stdio.size(), "registrations of stdio: " + found);
    assertEquals(StdioSessionTransportProvider.class, stdio.get(0).getClass());
    // CONTEXT offers no session transport: creating one must not ask for one.
    SessionTransport t = stdio.get(0).create(CONTEXT);
    assertEquals(StdioSessionTransport.class, t.getClass());
    assertEquals(SessionSettings.defaults(), ((StdioSessionTransport) t).settings());
    SessionTransport tuned = stdio.get(0).create(
        new ProviderContext(ProviderConfig.of(Map.of(SessionSettings.MAX_DEPTH, "10")), Path.of("unused")));
    assertEquals(10, ((StdioSessionTransport) tuned).settings().maxDepth());
  }

  @Test
  void everyLoadedSourceContributesOnlyCodesTheCoreAdmits() {
    ServerDescription remote =
        ServerDescription.http("remote", "https://example.test").withEnv(Map.of("A_TOKEN", "x"));
    List<Finding> all = new ArrayList<>();
    for (EvidenceSourceProvider p : ServiceLoader.load(EvidenceSourceProvider.class)) {
      all.addAll(p.create(CONTEXT).findings(new EvidenceInput(remote, Optional.of(Handshakes.with(Map.of("logging", Map.of()), List.of())))));
    }
    var verdict = Assessor.assess(new Evidence(List.of(), all, PreflightOutcome.NOT_MEASURED, true));
    assertEquals(dev.cotenant.api.Strength.DISQUALIFIED, verdict.strength());
    assertTrue(verdict.has(ReasonCode.NOT_STDIO));
    assertTrue(verdict.has(ReasonCode.ROTATING_SECRET_ENV));
    assertTrue(verdict.has(ReasonCode.DEGRADES_WHEN_SHARED));
    assertTrue(verdict.has(ReasonCode.NO_TOOLS_LISTED));
  }
}
