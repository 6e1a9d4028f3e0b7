package dev.cotenant.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.google.inject.Guice;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import dev.cotenant.gateway.CotenantModule;
import dev.cotenant.spi.HazardLedger;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.RecordStoreProvider;
import dev.cotenant.spi.RecordStores;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.ArgumentCaptor;

/**
 * How a host tests its own code against Cotenant with fakes instead of the real providers: no
 * files, no spawned servers, nothing registered on the class path. Copy and adapt.
 */
class SwapProviderForAFakeTest {
  private static final ServerDescription NOTES = ServerDescription.stdio("notes", "notes-mcp");
  private static final String IDENTITY = "notes-launch-identity";
  private static final HandshakeFacts CALLER_AWARE =
      HandshakeFacts.fromJson(
          "2025-06-18", Map.of("experimental", Map.of("cotenant.caller-identity", Map.of())), Map.of(), List.of());

  /** The host code under test: pre-flights a server, reads its hazards, decides whether to pool it. */
  static final class HostGateway {
    private final Cotenant cotenant;

    HostGateway(Cotenant cotenant) {
      this.cotenant = cotenant;
    }

    Verdict decide(ServerDescription server, String identity) throws InterruptedException {
      PreflightResult result = cotenant.preflightTransport().preflight(server);
      PreflightOutcome outcome =
          result.ran() ? new PreflightOutcome.Ran(result.divergentFacets()) : new PreflightOutcome.NotRun(result.notRunReason());
      Set<HazardCode> seen = cotenant.recordStores().hazardLedger().codesFor(server.name(), identity);
      return cotenant.assess(server, result.handshake(), outcome, seen);
    }
  }

  @TempDir Path records;

  private RecordStoreProvider recordStores;
  private HazardLedger ledger;
  private PreflightTransportProvider transportProvider;
  private PreflightTransport transport;

  @BeforeEach
  void fakes() throws InterruptedException {
    ledger = mock(HazardLedger.class);
    RecordStores stores = mock(RecordStores.class);
    when(stores.hazardLedger()).thenReturn(ledger);
    recordStores = mock(RecordStoreProvider.class);
    when(recordStores.name()).thenReturn("in-memory");
    when(recordStores.create(any())).thenReturn(stores);

    transport = mock(PreflightTransport.class);
    when(transport.preflight(NOTES)).thenReturn(PreflightResult.ran(List.of(), CALLER_AWARE));
    transportProvider = mock(PreflightTransportProvider.class);
    when(transportProvider.name()).thenReturn("scripted");
    when(transportProvider.create(any())).thenReturn(transport);
  }

  private Cotenant cotenant() {
    return Cotenant.builder()
        .recordsDirectory(records)
        .recordStores(recordStores)
        .preflightTransport(transportProvider)
        .build();
  }

  @Test
  void aDeclaredServerWithACleanLedgerIsPooled() throws InterruptedException {
    when(ledger.codesFor("notes", IDENTITY)).thenReturn(Set.of());

    Verdict v = new HostGateway(cotenant()).decide(NOTES, IDENTITY);

    assertEquals(Strength.DECLARED, v.strength());
    assertTrue(v.recommendShare());
    verify(transport, times(1)).preflight(NOTES);
    ArgumentCaptor<ProviderContext> context = ArgumentCaptor.forClass(ProviderContext.class);
    verify(recordStores).create(context.capture());
    assertEquals(records, context.getValue().recordsDirectory());
  }

  @Test
  void aHazardInTheFakeLedgerRefutesTheDeclaration() throws InterruptedException {
    when(ledger.codesFor("notes", IDENTITY)).thenReturn(Set.of(HazardCode.UNROUTABLE_SERVER_REQUEST));

    Verdict v = new HostGateway(cotenant()).decide(NOTES, IDENTITY);

    assertEquals(Strength.REFUTED, v.strength());
    assertFalse(v.recommendShare());
    assertFalse(v.recommendStub());
  }

  @Test
  void aPreflightThatCouldNotRunLeavesTheDeclarationUntested() throws InterruptedException {
    when(transport.preflight(NOTES)).thenReturn(PreflightResult.notRun("binary missing"));
    when(ledger.codesFor("notes", IDENTITY)).thenReturn(Set.of());

    Verdict v = new HostGateway(cotenant()).decide(NOTES, IDENTITY);

    // No handshake was observed, so nothing declared it: the honest answer is unknown.
    assertEquals(Strength.UNKNOWN, v.strength());
  }

  @Test
  void aMockClassifierReplacesTheDiscoveredOneOfTheSameName() {
    ManagedServerClassifierProvider classifier = mock(ManagedServerClassifierProvider.class);
    when(classifier.name()).thenReturn("host-managed");
    when(classifier.create(any())).thenReturn(server -> Optional.of("test double says so"));

    Cotenant c = Cotenant.builder().classifier(classifier).build();

    assertEquals(List.of("empty", "host-managed"), c.classifierNames());
    Verdict v = c.assess(NOTES, Optional.of(CALLER_AWARE), PreflightOutcome.passed(), List.of());
    assertEquals(Strength.DISQUALIFIED, v.strength());
  }

  @Test
  void theGuiceModuleTakesTheSameFakes() {
    Cotenant c =
        Guice.createInjector(
                new CotenantModule(
                    Cotenant.builder()
                        .recordsDirectory(records)
                        .recordStores(recordStores)
                        .preflightTransport(transportProvider)))
            .getInstance(Cotenant.class);

    assertSame(ledger, c.recordStores().hazardLedger());
    assertSame(transport, c.preflightTransport());
  }
}
