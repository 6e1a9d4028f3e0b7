package dev.cotenant.providers.evidence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** {@code registered_shared} and {@code statelessness_probe_passed} speak only under the identity the probe passed under. */
class ConcurrencySourcesTest {
  private static final ProviderContext CONTEXT = new ProviderContext(ProviderConfig.empty(), Path.of("unused"));
  private static final ServerDescription SERVER = ServerDescription.stdio("s", "node");
  private static final ProbePass PASS = ProbePass.wholeSurface("id-1", 5, 1.0, ProbePass.Surface.of(List.of("echo"), Map.of()));
  private static final EvidenceSource REGISTERED = new RegisteredSharedProvider().create(CONTEXT);
  private static final EvidenceSource PASSED = new StatelessnessProbePassedProvider().create(CONTEXT);

  private static EvidenceInput input(Optional<String> identity, Optional<ConcurrencyRecord> record) {
    return new EvidenceInput(SERVER, Optional.empty(), identity, record);
  }

  @Test
  void aSharedRecordProbedUnderTheCurrentIdentityIsRegisteredSharedWithItsScope() {
    EvidenceInput in = input(Optional.of("id-1"), Optional.of(ConcurrencyRecord.shared("s", ShareScope.GLOBAL, 4, PASS)));
    assertEquals(List.of(Finding.of("registered_shared", ReasonCode.REGISTERED_SHARED, "global")), REGISTERED.findings(in));
    assertEquals(List.of(Finding.of("statelessness_probe_passed", ReasonCode.STATELESSNESS_PROBE_PASSED, "whole surface: 1 tool x5")),
        PASSED.findings(in));
  }

  @Test
  void theToolsThePlanSkippedAreNamedInTheRegistration() {
    ProbePass pass = ProbePass.wholeSurface("id-1", 3, 1.0,
        ProbePass.Surface.of(List.of("echo"), Map.of("wipe", "destroys data", "drop", "drops tables")));
    EvidenceInput in = input(Optional.of("id-1"), Optional.of(ConcurrencyRecord.shared("s", ShareScope.TENANT, 4, pass)));
    assertEquals(List.of(Finding.of("registered_shared", ReasonCode.REGISTERED_SHARED, "tenant; skipped by plan: drop, wipe")),
        REGISTERED.findings(in));
    assertEquals(List.of(Finding.of("statelessness_probe_passed", ReasonCode.STATELESSNESS_PROBE_PASSED,
        "whole surface: 1 tool x3, 2 skipped by plan")), PASSED.findings(in));
  }

  @Test
  void aHandshakeListingAToolTheProbeNeverSawEndsTheRegistration() {
    ConcurrencyRecord shared = ConcurrencyRecord.shared("s", ShareScope.TENANT, 4, PASS);
    EvidenceInput same = new EvidenceInput(SERVER, Optional.of(handshake("echo")), Optional.of("id-1"), Optional.of(shared));
    assertEquals(1, REGISTERED.findings(same).size(), "the tools the probe covered");
    EvidenceInput grown = new EvidenceInput(SERVER, Optional.of(handshake("echo", "delete")), Optional.of("id-1"), Optional.of(shared));
    assertEquals(List.of(), REGISTERED.findings(grown), "a new tool is a surface the probe never saw");
    assertEquals(1, PASSED.findings(grown).size(), "the pass itself still supports");
  }

  @Test
  void aSingleToolPassSupportsButNeverRegisters() {
    ConcurrencyRecord sidecar = new ConcurrencyRecord("s", ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(),
        Optional.of(new ProbePass("id-1", "echo", 5, 1.0)));
    EvidenceInput in = input(Optional.of("id-1"), Optional.of(sidecar));
    assertEquals(List.of(), REGISTERED.findings(in));
    assertEquals(List.of(Finding.of("statelessness_probe_passed", ReasonCode.STATELESSNESS_PROBE_PASSED, "echo x5")),
        PASSED.findings(in));
  }

  private static HandshakeFacts handshake(String... tools) {
    return HandshakeFacts.fromJson("2025-06-18", Map.of("tools", Map.of()), Map.of("name", "s"),
        java.util.Arrays.stream(tools).map(ToolFacts::unannotated).toList());
  }

  @Test
  void underAnotherIdentityTheRecordReadsAsNotProbed() {
    EvidenceInput in = input(Optional.of("id-2"), Optional.of(ConcurrencyRecord.shared("s", ShareScope.TENANT, 4, PASS)));
    assertEquals(List.of(), REGISTERED.findings(in));
    assertEquals(List.of(), PASSED.findings(in));
  }

  @Test
  void withoutAnIdentityOrARecordBothAreSilent() {
    ConcurrencyRecord shared = ConcurrencyRecord.shared("s", ShareScope.TENANT, 4, PASS);
    for (EvidenceInput in : List.of(
        new EvidenceInput(SERVER, Optional.empty()),
        input(Optional.empty(), Optional.of(shared)),
        input(Optional.of("id-1"), Optional.empty()))) {
      assertEquals(List.of(), REGISTERED.findings(in));
      assertEquals(List.of(), PASSED.findings(in));
    }
  }

  @Test
  void aPassOnASidecarRecordSupportsButRegistersNothing() {
    ConcurrencyRecord sidecar =
        new ConcurrencyRecord("s", ConcurrencyModel.SIDECAR, ShareScope.TENANT, OptionalInt.empty(), Optional.of(PASS));
    EvidenceInput in = input(Optional.of("id-1"), Optional.of(sidecar));
    assertEquals(List.of(), REGISTERED.findings(in));
    assertEquals(1, PASSED.findings(in).size());
  }
}
