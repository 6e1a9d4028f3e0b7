package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.EvidenceRejectedException;
import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.providers.ProviderLoadingException;
import dev.cotenant.gateway.providers.ScopedServices;
import dev.cotenant.gateway.providers.fixtures.FakeRecordStoreProvider;
import dev.cotenant.gateway.providers.fixtures.ListedClassifierProvider;
import dev.cotenant.gateway.providers.fixtures.NamedFixture;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CotenantTest {
  private static final ServerDescription STDIO = ServerDescription.stdio("weather", "node", "weather.js");

  private static HandshakeFacts handshake(Map<String, ?> caps, List<ToolFacts> tools) {
    return HandshakeFacts.fromJson("2025-06-18", caps, Map.of("name", "weather", "version", "1.0"), tools);
  }

  /** An explicit evidence source built from a lambda. */
  private static EvidenceSourceProvider source(String name, EvidenceSource source) {
    return new EvidenceSourceProvider() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public EvidenceSource create(ProviderContext context) {
        return source;
      }
    };
  }

  @Test
  void classpathDiscoveryFindsTheDefaultProviders() {
    Cotenant c = Cotenant.builder().recordsDirectory(Path.of("records")).build();
    assertEquals(
        List.of(
            "all_tools_read_only", "declares_caller_identity", "degrades_when_shared", "no_tool_annotations",
            "no_tools_listed", "not_stdio", "registered_shared", "rotating_secret_env", "statelessness_probe_passed"),
        c.evidenceSourceNames());
    assertEquals(List.of("empty"), c.classifierNames());
  }

  @Test
  void theDefaultsAssessEveryStrength() {
    Cotenant c = Cotenant.builder().build();
    HandshakeFacts declared =
        handshake(Map.of("experimental", Map.of("cotenant.caller-identity", Map.of()), "logging", Map.of()), List.of());
    Verdict v = c.assess(STDIO, Optional.of(declared), PreflightOutcome.passed(), List.of());
    assertEquals(Strength.DECLARED, v.strength());
    assertTrue(v.recommendShare() && v.recommendStub());
    assertEquals(
        List.of(
            new Reason(ReasonCode.DECLARES_CALLER_IDENTITY, "cotenant.caller-identity"),
            Reason.of(ReasonCode.PREFLIGHT_PASSED),
            Reason.of(ReasonCode.NO_TOOLS_LISTED),
            new Reason(ReasonCode.DEGRADES_WHEN_SHARED, "logging_level")),
        v.reasons());

    HandshakeFacts plain = handshake(Map.of("tools", Map.of()), List.of(ToolFacts.unannotated("forecast")));
    assertEquals(Strength.MEASURED, c.assess(STDIO, Optional.of(plain), PreflightOutcome.passed(), List.of()).strength());
    assertEquals(
        Strength.NO_OBJECTION, c.assess(STDIO, Optional.of(plain), PreflightOutcome.NOT_MEASURED, List.of()).strength());
    assertEquals(Strength.UNKNOWN, c.assess(STDIO, Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of()).strength());
    assertEquals(
        Strength.DISQUALIFIED,
        c.assess(ServerDescription.http("remote", "https://x"), Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of())
            .strength());
    Verdict refuted =
        c.assess(STDIO, Optional.of(declared), PreflightOutcome.passed(), List.of(HazardCode.CROSS_SESSION_LEAK));
    assertEquals(Strength.REFUTED, refuted.strength());
    assertFalse(refuted.recommendStub() || refuted.recommendShare());
  }

  @Test
  void classifierFindingsComeFirstAndDisqualify() {
    Cotenant c = Cotenant.builder().classifier(new ListedClassifierProvider()).build();
    ServerDescription desktop = ServerDescription.stdio("host-desktop", "desktop-mcp");
    List<Finding> found = c.findings(desktop, Optional.empty());
    assertEquals(
        new Finding("listed", "session_bound_by_construction", "reads its caller from its own process"), found.get(0));
    assertEquals(List.of("empty", "listed"), c.classifierNames());
    Verdict v =
        c.assess(
            desktop,
            Optional.of(handshake(Map.of("experimental", Map.of("cotenant.caller-identity", true)), List.of())),
            PreflightOutcome.passed(),
            List.of());
    assertEquals(Strength.DISQUALIFIED, v.strength(), "a classifier's fact outranks the declaration");
    assertFalse(c.findings(STDIO, Optional.empty()).stream().anyMatch(f -> f.code().equals("session_bound_by_construction")));
  }

  @Test
  void configurationReachesTheDefaultSources() {
    Cotenant c =
        Cotenant.builder()
            .config(Map.of("cotenant.pool-identity-env", "GH_TOKEN", "cotenant.evidence.disabled", "no_tools_listed"))
            .build();
    ServerDescription s = STDIO.withEnv(Map.of("GH_TOKEN", "x", "OPENAI_API_KEY", "y"));
    assertEquals(
        List.of(new Finding("rotating_secret_env", "rotating_secret_env", "OPENAI_API_KEY")),
        c.findings(s, Optional.of(handshake(Map.of(), List.of()))));
    assertFalse(c.evidenceSourceNames().contains("no_tools_listed"));
  }

  @Test
  void withoutDiscoveryOnlyExplicitProvidersRunAndSingleProvidersAreLazy() {
    Cotenant c =
        Cotenant.builder()
            .withoutClasspathDiscovery()
            .evidenceSource(source("declares", input -> List.of(Finding.of("declares", ReasonCode.DECLARES_CALLER_IDENTITY, "k"))))
            .build();
    assertEquals(List.of("declares"), c.evidenceSourceNames());
    assertEquals(List.of(), c.classifierNames());
    // Assessing needs no record store, transport or seeding policy.
    assertEquals(Strength.DECLARED, c.assess(STDIO, Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of()).strength());
    ProviderLoadingException e = assertThrows(ProviderLoadingException.class, c::recordStores);
    assertTrue(e.getMessage().startsWith("no RecordStoreProvider is on the classpath."), e.getMessage());
    assertThrows(ProviderLoadingException.class, c::preflightTransport);
    assertThrows(ProviderLoadingException.class, c::seedingPolicy);
  }

  @Test
  void anExplicitRecordStoreIsCreatedOnceOnFirstUseWithTheRuntimesContext() {
    AtomicInteger created = new AtomicInteger();
    Path[] seen = new Path[1];
    FakeRecordStoreProvider fake =
        new FakeRecordStoreProvider() {
          @Override
          public RecordStores create(ProviderContext context) {
            created.incrementAndGet();
            seen[0] = context.recordsDirectory();
            return super.create(context);
          }
        };
    Cotenant c = Cotenant.builder().withoutClasspathDiscovery().recordsDirectory(Path.of("/tmp/r")).recordStores(fake).build();
    assertEquals(0, created.get(), "selected lazily");
    RecordStores first = c.recordStores();
    assertSame(first, c.recordStores());
    assertEquals(1, created.get());
    assertEquals(Path.of("/tmp/r"), seen[0]);
  }

  @Test
  void configurationSelectsAmongTheModulesRegisteredTransports() throws InterruptedException {
    Cotenant c = Cotenant.builder().config(Map.of("cotenant.preflight.provider", "fake")).build();
    assertEquals(PreflightResult.notRun("fake transport spawns nothing"), c.preflightTransport().preflight(STDIO));
    Cotenant broken = Cotenant.builder().config(Map.of("cotenant.preflight.provider", "broken-create")).build();
    ProviderLoadingException e = assertThrows(ProviderLoadingException.class, broken::preflightTransport);
    assertTrue(e.getMessage().contains("failed in create(): IllegalStateException: no process launcher available"));
    // Not cached as a success: the same error on the next call.
    assertEquals(e.getMessage(), assertThrows(ProviderLoadingException.class, broken::preflightTransport).getMessage());
  }

  @Test
  void aProviderDiscoverySeamReplacesTheClasspath() {
    Cotenant c = Cotenant.builder().discovery(ScopedServices.loader("chain")).build();
    assertEquals(List.of("zz_early", "fake_notes"), c.evidenceSourceNames());
    assertEquals(List.of("listed"), c.classifierNames());
    assertTrue(
        Cotenant.builder().discovery(ScopedServices.loader("single")).build().recordStores()
            instanceof dev.cotenant.testkit.records.InMemoryRecordStores);
  }

  @Test
  void aBrokenChainFailsTheBuild() {
    assertThrows(
        ProviderLoadingException.class, () -> Cotenant.builder().discovery(ScopedServices.loader("chain-broken")).build());
    final class Failing extends NamedFixture<EvidenceSource> implements EvidenceSourceProvider {
      Failing() {
        super("failing", () -> {
          throw new IllegalArgumentException("bad pattern");
        });
      }
    }
    EvidenceSourceProvider failing = new Failing();
    ProviderLoadingException e =
        assertThrows(
            ProviderLoadingException.class,
            () -> Cotenant.builder().withoutClasspathDiscovery().evidenceSource(failing).build());
    assertEquals(
        "EvidenceSourceProvider \"failing\" (" + failing.getClass().getName() + ") failed in create():"
            + " IllegalArgumentException: bad pattern. It was passed to Cotenant.builder().evidenceSource(...)",
        e.getMessage());
  }

  @Test
  void aSourceThatThrowsIsNamedNeverDropped() {
    Cotenant c =
        Cotenant.builder()
            .withoutClasspathDiscovery()
            .evidenceSource(source("flaky", input -> { throw new IllegalStateException("boom"); }))
            .build();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> c.findings(STDIO, Optional.empty()));
    assertEquals("evidence source \"flaky\" failed on server \"weather\": IllegalStateException: boom", e.getMessage());
    // The source's own exception is kept as the cause (mutant: the cause dropped).
    assertEquals("boom", e.getCause().getMessage());
    Cotenant nulls = Cotenant.builder().withoutClasspathDiscovery().evidenceSource(source("nulls", input -> null)).build();
    assertEquals(
        "evidence source \"nulls\" failed on server \"weather\": it returned null",
        assertThrows(IllegalStateException.class, () -> nulls.findings(STDIO, Optional.empty())).getMessage());
  }

  /**
   * The session transport is created with a context that offers no session transport: it cannot
   * open sessions through itself (mutant: it was given the context every other provider gets,
   * whose {@code sessions()} is the transport being created).
   */
  @Test
  void theSessionTransportsContextOffersNoSessionTransport() {
    java.util.concurrent.atomic.AtomicReference<String> seen = new java.util.concurrent.atomic.AtomicReference<>();
    dev.cotenant.spi.SessionTransport transport = (server, label, handler) -> {
      throw new AssertionError("this test opens no session");
    };
    Cotenant c = Cotenant.builder().withoutClasspathDiscovery().sessionTransport(new dev.cotenant.spi.SessionTransportProvider() {
      @Override
      public String name() {
        return "inspecting";
      }

      @Override
      public dev.cotenant.spi.SessionTransport create(ProviderContext context) {
        try {
          context.sessions();
          seen.set("offered one");
        } catch (IllegalStateException e) {
          seen.set(e.getMessage());
        }
        return transport;
      }
    }).build();
    assertSame(transport, c.sessionTransport());
    assertEquals("this provider context offers no session transport: a session transport cannot open sessions through "
        + "itself", seen.get());
  }

  @Test
  void anUnknownCodeFromASourceIsRefusedNamingTheSource() {
    Cotenant c =
        Cotenant.builder()
            .withoutClasspathDiscovery()
            .evidenceSource(source("rogue", input -> List.of(new Finding("rogue", "totally_safe", ""))))
            .build();
    EvidenceRejectedException e =
        assertThrows(
            EvidenceRejectedException.class,
            () -> c.assess(STDIO, Optional.empty(), PreflightOutcome.NOT_MEASURED, List.of()));
    assertEquals("rogue", e.source());
  }
}
