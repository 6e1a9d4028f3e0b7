package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.cotenant.spi.rpc.RequestId;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rule an HTTP session matches an answer to its request by, and a progress notice to the
 * request that gave its token: {@link RequestId}'s. Two pending requests with different ids must
 * not share a key, or an answer could reach the wrong one.
 */
class RequestIdKeyTest {
  private static RequestId id(Object json) {
    return RequestId.parse(json);
  }

  @Test
  void equalNumbersShareAKeyAndEveryOtherIdHasItsOwn() {
    assertEquals(id(1), id(1.0));
    assertEquals(id(1), id(1L));
    assertEquals(id(1), id(new BigDecimal("1.00")));
    assertEquals(id(1), id(BigInteger.ONE));
    assertEquals(id(1).key(), id(1.0).key());

    List<Object> distinct = List.of(1, 2, 1.5, "1", "2", "a", "true");
    Set<RequestId> ids = new HashSet<>();
    Set<String> keys = new HashSet<>();
    for (Object json : distinct) {
      ids.add(id(json));
      keys.add(id(json).key());
    }
    assertEquals(distinct.size(), ids.size(), "one id per value: " + ids);
    assertEquals(distinct.size(), keys.size(), "one key per id: " + keys);
    assertNotEquals(id(1), id("1"), "a number and a string with the same text");
  }

  /** A value that is no JSON-RPC id is no key: a request with it is refused, a token with it routes nothing. */
  @Test
  void whatIsNoIdHasNoKey() {
    for (Object json : List.of(true, Double.NaN, Double.POSITIVE_INFINITY)) {
      assertNull(RequestId.parse(json), String.valueOf(json));
    }
  }
}
