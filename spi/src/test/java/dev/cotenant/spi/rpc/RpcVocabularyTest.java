package dev.cotenant.spi.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.api.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RpcVocabularyTest {
  @Test
  void idsOfOneNumberAreEqualWhateverTheirSpellingAndNeverEqualAString() {
    RequestId one = RequestId.of(1);
    assertEquals(one, RequestId.parse(1));
    assertEquals(one, RequestId.parse(new BigDecimal("1.0")));
    assertEquals(one, RequestId.parse(1.0d));
    assertEquals(one, RequestId.parse(BigInteger.ONE));
    assertEquals(one.hashCode(), RequestId.parse(1.0d).hashCode());
    assertNotEquals(one, RequestId.of("1"));
    assertNotEquals(one, RequestId.parse(1.5d));
    assertEquals(1.0d, RequestId.parse(1.0d).json(), "an answer carries the id as the peer wrote it");
  }

  @Test
  void onlyStringsAndFiniteNumbersAreIds() {
    assertNull(RequestId.parse(null));
    assertNull(RequestId.parse(Json.NULL));
    assertNull(RequestId.parse(true));
    assertNull(RequestId.parse(Map.of()));
    assertNull(RequestId.parse(List.of(1)));
    assertNull(RequestId.parse(Double.NaN));
    assertNull(RequestId.parse(Double.POSITIVE_INFINITY));
  }

  @Test
  void aMessageIsClassifiedByItsMembers() throws Exception {
    Map<String, Object> request = Envelope.request(RequestId.of(7), "tools/call", Map.of("name", "x"));
    RpcMessage.Request r = assertInstanceOf(RpcMessage.Request.class, RpcMessage.read(request));
    assertEquals(RequestId.of(7), r.id());
    assertEquals("tools/call", r.method());
    assertSame(request, r.json(), "the message read is kept, not rebuilt");

    RpcMessage.Notification n = assertInstanceOf(RpcMessage.Notification.class,
        RpcMessage.read(Envelope.notification("notifications/initialized", null)));
    assertNull(n.params());
    assertEquals(Map.of(), n.paramsOrEmpty());

    RpcMessage.Response ok = assertInstanceOf(RpcMessage.Response.class,
        RpcMessage.read(Envelope.result(RequestId.of("a"), Map.of())));
    assertFalse(ok.isError());
    RpcMessage.Response err = assertInstanceOf(RpcMessage.Response.class,
        RpcMessage.read(Envelope.error(null, ErrorCode.PARSE_ERROR, "not JSON")));
    assertNull(err.id());
    assertEquals(-32700, err.error().code());
  }

  @Test
  void whatIsNotAMessageSaysWhyAndKeepsTheIdItCouldRead() {
    assertEquals("a batch (JSON-RPC batches are not taken)",
        assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read(List.of())).getMessage());
    assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read("text"));
    Map<String, Object> noMethod = new HashMap<>(Map.of("jsonrpc", "2.0", "id", 3));
    assertEquals(RequestId.of(3),
        assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read(noMethod)).id());
    Map<String, Object> badId = new LinkedHashMap<>(Map.of("jsonrpc", "2.0", "id", true, "method", "ping"));
    assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read(badId));
    Map<String, Object> nullId = new LinkedHashMap<>(Map.of("jsonrpc", "2.0", "method", "ping"));
    nullId.put("id", Json.NULL);
    assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read(nullId));
    Map<String, Object> numericMethod = new LinkedHashMap<>(Map.of("jsonrpc", "2.0", "id", 1, "method", 5));
    assertThrows(RpcMessage.InvalidMessage.class, () -> RpcMessage.read(numericMethod));
  }

  @Test
  void envelopesCarryTheVersionAndLeaveOutWhatIsAbsent() {
    Map<String, Object> e = Envelope.error(RequestId.of(2), -32073, "call interrupted", null);
    assertEquals(List.of("jsonrpc", "id", "error"), List.copyOf(e.keySet()));
    assertEquals(Map.of("code", -32073, "message", "call interrupted"), e.get("error"));
    assertEquals(List.of("jsonrpc", "method"), List.copyOf(Envelope.notification("x", null).keySet()));
    assertEquals(Json.NULL, Envelope.error(null, ErrorCode.INVALID_REQUEST, "bad").get("id"));
    assertEquals(Map.of("code", 1, "message", "m", "data", "d"), Envelope.error(RequestId.of(1), 1, "m", "d").get("error"));
  }

  @Test
  void everyErrorCodeHasItsOwnNumber() {
    Map<Integer, List<ErrorCode>> byNumber = Arrays.stream(ErrorCode.values())
        .collect(Collectors.groupingBy(ErrorCode::code));
    byNumber.forEach((n, codes) -> assertEquals(1, codes.size(), n + " means " + codes));
    assertEquals(ErrorCode.CALL_INTERRUPTED, ErrorCode.of(-32073).orElseThrow());
    assertEquals(ErrorCode.SESSION_NOT_FOUND, ErrorCode.of(-32001).orElseThrow());
    assertFalse(ErrorCode.of(-1).isPresent());
  }

  @Test
  void anAnswerPassedOnKeepsItsErrorAsWrittenOrItsResultUnderTheNewId() {
    Map<String, Object> error = new LinkedHashMap<>(Map.of("code", -32602, "message", "no such tool", "extra", 1));
    Map<String, Object> failed = Envelope.answer(RequestId.of("a"), Map.of("id", 9, "error", error));
    assertEquals(List.of("jsonrpc", "id", "error"), List.copyOf(failed.keySet()));
    assertEquals("a", failed.get("id"));
    assertSame(error, failed.get("error"));
    Map<String, Object> result = Map.of("content", List.of());
    assertSame(result, Envelope.answer(RequestId.of(4), Map.of("id", 9, "result", result)).get("result"));
    assertSame(Json.NULL, Envelope.answer(RequestId.of(4), Map.of("id", 9)).get("result"));
  }
}
