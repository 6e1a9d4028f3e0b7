package dev.cotenant.testkit.contract;

import dev.cotenant.api.ConcurrencyModel;
import dev.cotenant.api.ConcurrencyRecord;
import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ProbePass;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ShareScope;
import dev.cotenant.api.Strength;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Transport;
import dev.cotenant.api.Verdict;
import dev.cotenant.spi.CoreSettings;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.PreflightRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Sample values the suites feed providers: launch identities, server descriptions, evidence
 * inputs covering every kind of server and handshake, verdicts of every strength, pre-flight rows.
 * A suite's subclass may add its own samples (each suite has an overridable method returning
 * these); the samples themselves never change between calls.
 *
 * <p>Stateless; every method returns new immutable values. Thread-safe.
 */
public final class Samples {
  /** The binary fingerprint of the first build of a sample server. */
  public static final String BUILD_1 = "/opt/bin/server:1024:1700000000";

  /** The binary fingerprint of a second build (blue/green) of a sample server. */
  public static final String BUILD_2 = "/opt/bin/server:2048:1700009999";

  private Samples() {}

  /** The launch identity of sample server {@code serverName} built as {@code build}. */
  public static ExecutionIdentity identity(String serverName, String build) {
    ServerDescription server = ServerDescription.stdio(serverName, "/opt/bin/server", "--serve");
    return ExecutionIdentity.of(
        server, Map.of("MODE", "test"), SecretPatterns.defaults(), List.of(), build, ExecutionIdentity.PREFLIGHT_SCHEMA);
  }

  /** The hazard ledger identity ({@code ledgerKey()}) of {@code serverName}'s first build. */
  public static String ledgerKey(String serverName) {
    return identity(serverName, BUILD_1).ledgerKey();
  }

  /** The hazard ledger identity of {@code serverName}'s second build. */
  public static String otherLedgerKey(String serverName) {
    return identity(serverName, BUILD_2).ledgerKey();
  }

  /** The pre-flight cache key ({@code cacheKey()}) of {@code serverName}'s first build. */
  public static String cacheKey(String serverName) {
    return identity(serverName, BUILD_1).cacheKey();
  }

  /** The pre-flight cache key of {@code serverName}'s second build. */
  public static String otherCacheKey(String serverName) {
    return identity(serverName, BUILD_2).cacheKey();
  }

  /** A handshake with logging, a caller-identity declaration, and two read-only tools. */
  public static HandshakeFacts richHandshake() {
    Map<String, Object> caps = new LinkedHashMap<>();
    caps.put("logging", Map.of());
    caps.put("tools", Map.of("listChanged", true));
    caps.put("prompts", Map.of());
    caps.put("experimental", Map.of(CoreSettings.DEFAULT_CALLER_IDENTITY_KEY, Map.of("metaKey", "example/caller")));
    return HandshakeFacts.fromJson("2025-06-18", caps, Map.of("name", "rich", "version", "2.1.0"),
        List.of(readOnly("read"), readOnly("search")));
  }

  /** A handshake of an older server that listed no tools and carried no annotations. */
  public static HandshakeFacts bareHandshake() {
    return HandshakeFacts.fromJson("2024-11-05", Map.of("tools", Map.of()), Map.of("name", "bare"), List.of());
  }

  /** A handshake whose tools are partly annotated, one of them writing. */
  public static HandshakeFacts mixedHandshake() {
    return HandshakeFacts.fromJson(
        "2025-11-25",
        Map.of("tools", Map.of(), "resources", Map.of("subscribe", true)),
        Map.of("name", "mixed", "version", "0.9\n\u001b[31m"),
        List.of(readOnly("read"), new ToolFacts("write", Optional.of(Map.of("readOnlyHint", false, "destructiveHint", true))),
            ToolFacts.unannotated("legacy")));
  }

  /** A tool declaring {@code readOnlyHint: true}. */
  public static ToolFacts readOnly(String name) {
    return new ToolFacts(name, Optional.of(Map.of("readOnlyHint", true, "title", name)));
  }

  /** Server descriptions of every kind: stdio with and without env, cwd and args, HTTP, SSE, disabled. */
  public static List<ServerDescription> servers() {
    List<ServerDescription> out = new ArrayList<>();
    out.add(ServerDescription.stdio("plain", "/opt/bin/server"));
    out.add(ServerDescription.stdio("with-args", "npx", "-y", "@example/server", "--root", "/srv"));
    out.add(ServerDescription.stdio("with-env", "/opt/bin/server")
        .withEnv(Map.of("API_TOKEN", "t0k3n", "DB_PASSWORD", "hunter2", "MODE", "prod", "GITHUB_SECRET", "s")));
    out.add(ServerDescription.stdio("with-cwd", "./run.sh").withCwd(Optional.of("/srv/app")));
    out.add(ServerDescription.stdio("disabled", "/opt/bin/server").withEnabled(false));
    out.add(ServerDescription.http("remote", "https://mcp.example.com/mcp"));
    out.add(new ServerDescription("legacy-sse", Transport.SSE, "", List.of(), Optional.empty(), Map.of(),
        Optional.of("https://mcp.example.com/sse"), true));
    return List.copyOf(out);
  }

  /**
   * Evidence inputs covering the cases a source may speak about: with and without a handshake,
   * rich, bare and mixed handshakes, secret env names, every transport, a disabled server, an
   * identity with and without a matching concurrency record.
   */
  public static List<EvidenceInput> evidenceInputs() {
    List<EvidenceInput> out = new ArrayList<>();
    List<Optional<HandshakeFacts>> handshakes =
        List.of(Optional.empty(), Optional.of(richHandshake()), Optional.of(bareHandshake()), Optional.of(mixedHandshake()));
    for (ServerDescription server : servers()) {
      for (Optional<HandshakeFacts> h : handshakes) {
        out.add(new EvidenceInput(server, h));
      }
    }
    ServerDescription registered = ServerDescription.stdio("registered", "/opt/bin/server");
    String id = ledgerKey("registered");
    ProbePass pass = ProbePass.wholeSurface(id, 5, 1_700_000_000.0, ProbePass.Surface.of(List.of("echo"), Map.of()));
    ConcurrencyRecord shared = ConcurrencyRecord.shared("registered", ShareScope.TENANT, 4, pass);
    out.add(new EvidenceInput(registered, Optional.of(richHandshake()), Optional.of(id), Optional.of(shared)));
    out.add(new EvidenceInput(registered, Optional.of(richHandshake()), Optional.of(otherLedgerKey("registered")),
        Optional.of(shared)));
    out.add(new EvidenceInput(registered, Optional.empty(), Optional.empty(), Optional.of(shared)));
    ConcurrencyRecord sidecarProbed = new ConcurrencyRecord("registered", ConcurrencyModel.SIDECAR, ShareScope.TENANT,
        OptionalInt.empty(), Optional.of(pass));
    out.add(new EvidenceInput(registered, Optional.of(bareHandshake()), Optional.of(id), Optional.of(sidecarProbed)));
    ConcurrencyRecord global = ConcurrencyRecord.shared("registered", ShareScope.GLOBAL, 1, pass);
    out.add(new EvidenceInput(registered, Optional.of(mixedHandshake()), Optional.of(id), Optional.of(global)));
    out.add(new EvidenceInput(registered, Optional.of(mixedHandshake()), Optional.of(id),
        Optional.of(ConcurrencyRecord.sidecar("registered"))));
    return List.copyOf(out);
  }

  /** Verdicts of every strength, by server name, with realistic reasons. */
  public static Map<String, Verdict> verdicts() {
    Map<String, Verdict> v = new LinkedHashMap<>();
    v.put("declared", new Verdict(Strength.DECLARED,
        List.of(new Reason(ReasonCode.DECLARES_CALLER_IDENTITY, CoreSettings.DEFAULT_CALLER_IDENTITY_KEY),
            Reason.of(ReasonCode.PREFLIGHT_PASSED)), true, true));
    v.put("registered", new Verdict(Strength.DECLARED,
        List.of(new Reason(ReasonCode.REGISTERED_SHARED, "tenant"), Reason.of(ReasonCode.PREFLIGHT_NOT_RUN)), true, true));
    v.put("measured", new Verdict(Strength.MEASURED, List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED)), true, false));
    v.put("noted", new Verdict(Strength.MEASURED, List.of(Reason.of(ReasonCode.PREFLIGHT_PASSED),
        new Reason(ReasonCode.DEGRADES_WHEN_SHARED, "logging_level")), true, false));
    v.put("no-objection", new Verdict(Strength.NO_OBJECTION, List.of(Reason.of(ReasonCode.NO_OBJECTION_FOUND)), true, false));
    v.put("unknown", new Verdict(Strength.UNKNOWN, List.of(Reason.of(ReasonCode.NOT_PROBED)), false, false));
    v.put("refuted", new Verdict(Strength.REFUTED,
        List.of(new Reason(ReasonCode.OBSERVED_HAZARD, "cross_session_leak")), false, false));
    v.put("remote", new Verdict(Strength.DISQUALIFIED, List.of(Reason.of(ReasonCode.NOT_STDIO)), false, false));
    return Map.copyOf(v);
  }

  /** Applied markers for {@link #verdicts()}: two configured servers and one no longer configured. */
  public static Set<String> applied() {
    return Set.of("measured", "registered", "removed-last-month");
  }

  /** A pre-flight row that ran and found nothing divergent, taken under {@code identity}. */
  public static PreflightRecord row(String serverName, String identity, Optional<String> reportedVersion) {
    return new PreflightRecord(serverName, identity, true, false, List.of(), 1_700_000_000.5, reportedVersion,
        Optional.empty());
  }
}
