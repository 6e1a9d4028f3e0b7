package dev.cotenant.examples;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.HazardCode;
import dev.cotenant.api.PreflightOutcome;
import dev.cotenant.api.Reason;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.api.Verdict;
import dev.cotenant.examples.provider.HostManagedClassifierProvider;
import dev.cotenant.gateway.Cotenant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Assesses a few hand-built servers, one per strength, and prints their verdicts as a table.
 * Spawns nothing and writes nothing: every handshake, pre-flight outcome and observation is
 * built by hand. The providers are the ones on the class path: the default evidence sources,
 * the empty classifier, and this module's {@link HostManagedClassifierProvider}.
 *
 * <p>Run it with {@code java -cp "examples/target/classes:examples/target/lib/*"
 * dev.cotenant.examples.AssessExample} after {@code mvn -B -q -DskipTests package}.
 */
public final class AssessExample {
  private AssessExample() {}

  /**
   * One hand-built case.
   *
   * @param server the server as a host describes it
   * @param handshake the handshake the host observed, if any
   * @param preflight the stored pre-flight outcome
   * @param observations hazards the ledger holds for it
   */
  public record Case(
      ServerDescription server,
      Optional<HandshakeFacts> handshake,
      PreflightOutcome preflight,
      List<HazardCode> observations) {}

  /** The configuration the example runs with. */
  public static final Map<String, String> CONFIG =
      Map.of(HostManagedClassifierProvider.SERVERS_KEY, "desktop-control");

  /** The cases, in the order they are printed. */
  public static List<Case> cases() {
    HandshakeFacts callerAware =
        HandshakeFacts.fromJson(
            "2025-06-18",
            Map.of("tools", Map.of(), "experimental", Map.of("cotenant.caller-identity", Map.of())),
            Map.of("name", "notes", "version", "2.1.0"),
            List.of(readOnly("search_notes"), readOnly("get_note")));
    HandshakeFacts oldProtocol =
        HandshakeFacts.fromJson(
            "2024-11-05",
            Map.of("tools", Map.of(), "logging", Map.of()),
            Map.of("name", "git", "version", "0.6.2"),
            List.of(ToolFacts.unannotated("git_log"), ToolFacts.unannotated("git_diff")));
    HandshakeFacts noTools =
        HandshakeFacts.fromJson("2025-06-18", Map.of("prompts", Map.of()), Map.of("name", "prompts"), List.of());
    return List.of(
        new Case(
            ServerDescription.stdio("notes", "notes-mcp"), Optional.of(callerAware), PreflightOutcome.passed(), List.of()),
        new Case(
            ServerDescription.stdio("git", "uvx", "mcp-server-git").withEnv(Map.of("GITHUB_TOKEN", "redacted")),
            Optional.of(oldProtocol),
            PreflightOutcome.passed(),
            List.of()),
        new Case(
            ServerDescription.stdio("prompts", "node", "prompts.js"),
            Optional.of(noTools),
            PreflightOutcome.NOT_MEASURED,
            List.of()),
        new Case(
            ServerDescription.stdio("fresh-install", "npx", "-y", "some-server@latest"),
            Optional.empty(),
            PreflightOutcome.NOT_MEASURED,
            List.of()),
        new Case(
            ServerDescription.http("remote-search", "https://search.example.test/mcp"),
            Optional.empty(),
            PreflightOutcome.NOT_MEASURED,
            List.of()),
        new Case(
            ServerDescription.stdio("desktop-control", "desktop-mcp"),
            Optional.of(callerAware),
            new PreflightOutcome.NotRun("needs a display"),
            List.of()),
        new Case(
            ServerDescription.stdio("browser", "browser-mcp"),
            Optional.of(callerAware),
            PreflightOutcome.diverged("serverInfo"),
            List.of(HazardCode.UNATTRIBUTABLE_NOTIFICATION)));
  }

  /** Assesses every case with {@code cotenant}, in order. */
  public static List<Verdict> assessAll(Cotenant cotenant, List<Case> cases) {
    List<Verdict> out = new ArrayList<>();
    for (Case c : cases) {
      out.add(cotenant.assess(c.server(), c.handshake(), c.preflight(), c.observations()));
    }
    return out;
  }

  /** A fixed-width table: server, strength, stub, share, reasons. */
  public static String table(List<Case> cases, List<Verdict> verdicts) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"SERVER", "STRENGTH", "STUB", "SHARE", "REASONS"});
    for (int i = 0; i < cases.size(); i++) {
      Verdict v = verdicts.get(i);
      rows.add(
          new String[] {
            cases.get(i).server().name(),
            v.strength().wireName(),
            v.recommendStub() ? "yes" : "no",
            v.recommendShare() ? "yes" : "no",
            v.reasons().stream().map(Reason::toString).collect(Collectors.joining(", "))
          });
    }
    int[] width = new int[4];
    for (String[] r : rows) {
      for (int c = 0; c < width.length; c++) {
        width[c] = Math.max(width[c], r[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : rows) {
      for (int c = 0; c < width.length; c++) {
        sb.append(r[c]).append(" ".repeat(width[c] - r[c].length() + 2));
      }
      sb.append(r[4]).append('\n');
    }
    return sb.toString();
  }

  /** Prints the table. */
  public static void main(String[] args) {
    Cotenant cotenant = Cotenant.builder().config(CONFIG).build();
    List<Case> cases = cases();
    System.out.print(table(cases, assessAll(cotenant, cases)));
  }

  private static ToolFacts readOnly(String name) {
    return new ToolFacts(name, Optional.of(Map.of("readOnlyHint", true)));
  }
}
