package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.ScriptedSessions.arguments;
import static dev.cotenant.gateway.probe.ScriptedSessions.result;
import static dev.cotenant.gateway.probe.ScriptedSessions.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.SecretPatterns;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import dev.cotenant.gateway.probe.ScriptedSessions.Scripted;
import dev.cotenant.gateway.probe.SurfaceReport.Outcome;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.ServerMessageHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The whole-surface probe's second pass, as clients declaring roots, sampling and elicitation:
 * each caller answers what the server asks with values of its own, on the shared backend the
 * caller whose call is in flight answers, and a server that keeps one client's answer for
 * another leaves such clients uncovered (reported, not recorded as a hazard).
 */
class SurfaceProbeClientShapesTest {
  private static final Map<String, Object> ECHO = Map.of("name", "echo", "inputSchema", Map.of("type", "object",
      "properties", Map.of("text", Map.of("type", "string")), "required", List.of("text")));

  private static final ServerDescription SERVER = new ServerDescription("scripted", Transport.STDIO, "scripted-server",
      List.of(), Optional.empty(), Map.of(), Optional.empty(), true);

  private static final Map<String, Object> HANDSHAKE = Map.of("protocolVersion", "2025-06-18",
      "capabilities", Map.of("tools", Map.of()), "serverInfo", Map.of("name", "scripted", "version", "1"));

  private static final Map<String, Object> ELICIT = Map.of("message", "who are you?", "requestedSchema", Map.of(
      "type", "object", "properties", Map.of("name", Map.of("type", "string"), "age", Map.of("type", "integer",
          "minimum", 18), "ok", Map.of("type", "boolean"), "color", Map.of("type", "string", "enum", List.of("red", "blue")))));

  private static SurfaceReport run(ScriptedSessions sessions) throws InterruptedException {
    return new SurfaceProbe(sessions, HandshakeEra.INITIALIZE, Duration.ofSeconds(5), Duration.ofMillis(300),
        Duration.ofSeconds(30), Set.of(), SecretPatterns.defaults()).run(SERVER, "id-scripted", ProbePlan.empty(), 3);
  }

  /** What the client answered {@code method}: its result, or the error's text. */
  private static Object ask(Scripted s, String method, Map<String, Object> params) {
    ServerMessageHandler.Reply r = s.handler.onRequest(method, params);
    return r instanceof ServerMessageHandler.Result res ? res.value() : "error " + ((ServerMessageHandler.Error) r).message();
  }

  /** The name of the first root the client answered {@code roots/list} with. */
  private static String root(Scripted s) {
    Object v = ask(s, "roots/list", Map.of());
    return v instanceof Map<?, ?> m ? String.valueOf(((Map<?, ?>) ((List<?>) m.get("roots")).get(0)).get("name")) : "none";
  }

  /**
   * A server that asks the client of each call for its roots, a sample and an elicitation, and
   * answers with them: every caller gets its own values, on the shared backend too, so the pass
   * as capable clients passes and covers them. Kills a shared backend that routes every request
   * to the first caller (B would be answered A's values).
   */
  @Test
  void aServerThatAsksTheClientOfEachCallIsAnsweredByThatClientAndCoversCapableClients() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
      case "tools/call" -> {
        String text = "echo " + arguments(params).get("text");
        if (!s.capabilities.isEmpty()) {
          String root = root(s);
          @SuppressWarnings("unchecked")
          List<String> roots = (List<String>) s.state.computeIfAbsent("roots", k -> new ArrayList<String>());
          roots.add(root);
          text += " root " + root + " sampled " + ask(s, "sampling/createMessage", Map.of("messages", List.of()))
              + " elicited " + ask(s, "elicitation/create", ELICIT);
        }
        yield text(text);
      }
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(r.clients().covered(), r.clients().toString());
    assertEquals(List.of("roots", "sampling", "elicitation"), r.clients().declared());
    assertEquals("clients declaring elicitation, roots, sampling: covered (they may share a backend)", r.clients().describe());
    Scripted shared = sessions.opened.get(7);
    assertEquals("probe-shared", shared.label);
    @SuppressWarnings("unchecked")
    List<String> roots = (List<String>) shared.state.get("roots");
    assertEquals(6, roots.size(), "asked at each of the six calls: " + roots);
    assertEquals(3, roots.stream().filter(n -> n.startsWith("cotenant-probe-a-")).count(), roots.toString());
    assertEquals(3, roots.stream().filter(n -> n.startsWith("cotenant-probe-b-")).count(), roots.toString());
    for (Scripted s : sessions.opened.subList(0, 5)) {
      assertFalse(s.state.containsKey("roots"), "the first pass declares no capability, and is asked nothing");
    }
    assertTrue(r.traffic().unroutable().isEmpty(), "the first pass's shared backend saw no request: " + r.traffic());
  }

  /**
   * A server that asks the first client for its roots once and keeps them for the process: on the
   * shared backend B's answers carry A's root. The probe still passes (as clients declaring
   * nothing it is stateless), records no hazard, and says clients declaring roots are not
   * covered, and why.
   */
  @Test
  void aServerThatKeepsTheFirstClientsRootsLeavesCapableClientsUncoveredWithoutAHazard() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
      case "tools/call" -> {
        String text = "echo " + arguments(params).get("text");
        if (!s.capabilities.isEmpty()) {
          text += " root " + s.state.computeIfAbsent("root", k -> root(s));
        }
        yield text(text);
      }
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.PASSED, r.outcome(), r.toString());
    assertTrue(r.hazards().isEmpty(), "what the second pass saw is not a hazard: " + r.hazards());
    assertFalse(r.clients().covered());
    assertEquals(List.of(), r.clients().capabilities());
    assertTrue(r.clients().why().startsWith("cross_session_leak: "), r.clients().why());
    assertTrue(r.clients().why().contains("cotenant-probe-a-"), "it names A's root, seen by B: " + r.clients().why());
    assertTrue(r.clients().describe().startsWith("clients declaring elicitation, roots, sampling: not covered, so they get"
        + " backends of their own: cross_session_leak"), r.clients().describe());
  }

  /**
   * A probe that did not pass as clients declaring nothing runs no second pass: five backends,
   * and its report says no such pass was run.
   */
  @Test
  void aProbeThatDidNotPassRunsNoPassAsCapableClients() throws Exception {
    ScriptedSessions sessions = new ScriptedSessions(HANDSHAKE, (s, method, params) -> switch (method) {
      case "tools/list" -> result(Map.of("tools", List.of(ECHO)));
      case "tools/call" -> text("calls=" + s.next("calls"));
      default -> result(Map.of());
    });
    SurfaceReport r = run(sessions);
    assertEquals(Outcome.HAZARD, r.outcome(), r.toString());
    assertEquals(SurfaceReport.ClientCoverage.NOT_TRIED, r.clients());
    assertTrue(sessions.opened.stream().allMatch(s -> s.capabilities.isEmpty()), "no backend was started as a capable client");
  }

  /** An elicitation's form is filled within its schema with the caller's value; a URL-mode one is declined. */
  @Test
  void anElicitationIsFilledWithinItsSchemaAndAUrlOneDeclined() {
    ProbeCaller a = ProbeCaller.of("A", "alpha", "cotenant-probe-a-x", "x", List.of("1"));
    ServerMessageHandler.Reply form = new ClientAnswers().answer(a, Path.of("/nonexistent-scratch"), "elicitation/create", ELICIT);
    assertEquals(Map.of("action", "accept", "content", Map.of("name", "cotenant-probe-a-x-1", "age", 18L, "ok", true,
        "color", "red")), ((ServerMessageHandler.Result) form).value());
    ServerMessageHandler.Reply url = new ClientAnswers().answer(a, Path.of("/nonexistent-scratch"), "elicitation/create",
        Map.of("mode", "url", "url", "https://example.com/login", "elicitationId", "e1", "message", "sign in"));
    assertEquals(Map.of("action", "decline"), ((ServerMessageHandler.Result) url).value());
    assertTrue(new ClientAnswers().answer(a, Path.of("/x"), "tasks/get", Map.of()) instanceof ServerMessageHandler.Error);
  }
}
