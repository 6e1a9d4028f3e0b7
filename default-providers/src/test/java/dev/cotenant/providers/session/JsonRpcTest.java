package dev.cotenant.providers.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.RequestId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JSON-RPC helpers of the stdio session read on their own. Each test names the mutants of
 * {@link JsonRpc} it kills (method, line at the time, mutator).
 */
class JsonRpcTest {
  private static Map<String, Object> map(Object... keysAndValues) {
    return JsonRpc.object(keysAndValues);
  }

  /** Kills {@code duration} (112: each operator and the zero test): whole seconds in seconds, the rest in milliseconds. */
  @Test
  void aDurationIsInSecondsOnlyWhenWhole() {
    assertEquals("15 s", JsonRpc.duration(15_000));
    assertEquals("1 s", JsonRpc.duration(1_000));
    assertEquals("1500 ms", JsonRpc.duration(1_500));
    assertEquals("0 ms", JsonRpc.duration(0));
    assertEquals("999 ms", JsonRpc.duration(999));
  }

  /** Kills {@code errorCode} (169, 170 negated; 170 returning ""): the numeric code, or {@code ?}. */
  @Test
  void anErrorCodeIsItsNumberOrAQuestionMark() {
    assertEquals("-32601", JsonRpc.errorCode(map("error", map("code", -32601))));
    assertEquals("?", JsonRpc.errorCode(map("error", map("code", "x"))));
    assertEquals("?", JsonRpc.errorCode(map("error", "broken")));
    assertEquals("?", JsonRpc.errorCode(map("result", map())));
  }

  /** Kills {@code result} (152, both conditions negated): an error's message is shown only when it is a string. */
  @Test
  void aResultIsTheObjectOrAnAnswerFailureNamingTheError() throws SessionException {
    Map<String, Object> inner = map("tools", List.of());
    assertSame(inner, JsonRpc.result(map("result", inner), "tools/list"));
    assertEquals("tools/list answered error -32601: no such method", assertThrows(SessionException.class,
        () -> JsonRpc.result(map("error", map("code", -32601, "message", "no such method")), "tools/list")).getMessage());
    assertEquals("tools/list answered error -32601", assertThrows(SessionException.class,
        () -> JsonRpc.result(map("error", map("code", -32601, "message", 7)), "tools/list")).getMessage());
    assertEquals("tools/list answered error ?", assertThrows(SessionException.class,
        () -> JsonRpc.result(map("error", "x"), "tools/list")).getMessage());
    SessionException noObject = assertThrows(SessionException.class, () -> JsonRpc.result(map("result", List.of()), "ping"));
    assertEquals(SessionException.Kind.ANSWER, noObject.kind());
    assertEquals("ping answered without a result object", noObject.getMessage());
  }

  /** Kills {@code fallsBackAfterDiscover} (95 returning true; 95 and 97, uncovered before): which failures lead to {@code initialize}. */
  @Test
  void onlyAnUnfittingAnswerAnExitOrSilenceWithTimeLeftFallBack() {
    long future = System.nanoTime() + 60_000_000_000L;
    long past = System.nanoTime() - 1;
    assertTrue(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.ANSWER, past));
    assertTrue(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.EXITED, past));
    assertTrue(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.TIMEOUT, future));
    assertFalse(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.TIMEOUT, past));
    assertFalse(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.GARBAGE, future));
    assertFalse(JsonRpc.fallsBackAfterDiscover(SessionException.Kind.START, future));
  }

  /** Kills {@code initializeParams} and {@code offersModern} returning an empty map (58, 86). */
  @Test
  void theHandshakeParamsAndAModernOffer() throws SessionException {
    Map<String, Object> info = map("name", "c", "version", "1");
    Map<String, Object> caps = map("roots", map());
    assertEquals(map("protocolVersion", Mcp.LEGACY_VERSION, "capabilities", caps, "clientInfo", info),
        JsonRpc.initializeParams(info, caps));
    Map<String, Object> offer = map("supportedVersions", List.of(Mcp.LEGACY_VERSION, Mcp.MODERN_VERSION));
    assertSame(offer, JsonRpc.offersModern(offer));
    SessionException refused = assertThrows(SessionException.class,
        () -> JsonRpc.offersModern(map("supportedVersions", List.of(Mcp.LEGACY_VERSION))));
    assertEquals(SessionException.Kind.ANSWER, refused.kind());
    assertTrue(refused.getMessage().startsWith("server/discover did not offer " + Mcp.MODERN_VERSION), refused.getMessage());
  }

  /**
   * The answer to a server's request, built by {@code StdioSession.reply} through the envelope
   * factories: a result, or an error with the handler's code and message, carrying the request's
   * id as the server wrote it.
   */
  @Test
  void aReplyToAServerRequestIsAResultOrAnErrorUnderItsId() {
    assertEquals(map("jsonrpc", "2.0", "id", "s-1", "result", map("ok", true)),
        StdioSession.reply(RequestId.of("s-1"), new ServerMessageHandler.Result(map("ok", true))));
    assertEquals(map("jsonrpc", "2.0", "id", 7L, "error", map("code", -32601, "message", "Method not found")),
        StdioSession.reply(RequestId.of(7), new ServerMessageHandler.Error(-32601, "Method not found")));
  }
}
