package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The key an answer is matched to its request by. Mutants: {@code key} returning "" for a number,
 * for a string or for anything else, and its string check negated. With any of them, two pending
 * requests with different ids shared one key, so an answer could reach the wrong one.
 */
class JsonRpcKeyTest {
  @Test
  void equalNumbersShareAKeyAndEveryOtherIdHasItsOwn() {
    assertEquals(JsonRpc.key(1), JsonRpc.key(1.0));
    assertEquals(JsonRpc.key(1), JsonRpc.key(1L));
    assertEquals(JsonRpc.key(1), JsonRpc.key(new BigDecimal("1.00")));
    assertEquals(JsonRpc.key(1), JsonRpc.key(BigInteger.ONE));
    assertEquals(JsonRpc.key(Double.NaN), JsonRpc.key(Double.NaN), "a number BigDecimal cannot read keeps a key");

    List<Object> distinct = List.of(1, 2, 1.5, "1", "2", "a", true, Double.NaN, Double.POSITIVE_INFINITY);
    Set<String> keys = new HashSet<>();
    for (Object id : distinct) {
      keys.add(JsonRpc.key(id));
    }
    assertEquals(distinct.size(), keys.size(), "one key per id: " + keys);
    assertNotEquals(JsonRpc.key("true"), JsonRpc.key(true), "a string and a boolean with the same text");
  }
}
