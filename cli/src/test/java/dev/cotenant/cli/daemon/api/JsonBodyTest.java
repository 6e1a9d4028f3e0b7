package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The API's request bodies at their bounds. Mutants of {@link JsonBody}: the size limit at
 * {@code >=}, the message of a route that takes no field, and an integer's bounds made
 * exclusive.
 */
class JsonBodyTest {
  private static byte[] padded(String json, int size) {
    return (json + " ".repeat(size - json.length())).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aBodyOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() throws Exception {
    JsonBody at = JsonBody.parse(padded("{\"name\":\"echo\"}", JsonBody.MAX_BYTES), "name");
    assertEquals("echo", at.string("name"));
    ApiError over = assertThrows(ApiError.class,
        () -> JsonBody.parse(padded("{\"name\":\"echo\"}", JsonBody.MAX_BYTES + 1), "name"));
    assertTrue(over.getMessage().contains("larger than " + JsonBody.MAX_BYTES), over.getMessage());
  }

  @Test
  void anUnknownFieldNamesWhatTheRouteTakes() {
    ApiError none = assertThrows(ApiError.class, () -> JsonBody.parse("{\"x\":1}".getBytes(StandardCharsets.UTF_8)));
    assertTrue(none.getMessage().endsWith("this route takes no field"), none.getMessage());
    ApiError some = assertThrows(ApiError.class,
        () -> JsonBody.parse("{\"x\":1}".getBytes(StandardCharsets.UTF_8), "name", "timeoutMs"));
    assertTrue(some.getMessage().endsWith("this route takes name, timeoutMs"), some.getMessage());
  }

  @Test
  void anIntegersBoundsAreInclusive() throws Exception {
    byte[] min = "{\"n\":0}".getBytes(StandardCharsets.UTF_8);
    byte[] max = "{\"n\":600000}".getBytes(StandardCharsets.UTF_8);
    assertEquals(Optional.of(0), JsonBody.parse(min, "n").optionalInt("n", 0, 600_000));
    assertEquals(Optional.of(600_000), JsonBody.parse(max, "n").optionalInt("n", 0, 600_000));
    assertThrows(ApiError.class,
        () -> JsonBody.parse("{\"n\":-1}".getBytes(StandardCharsets.UTF_8), "n").optionalInt("n", 0, 600_000));
    assertThrows(ApiError.class,
        () -> JsonBody.parse("{\"n\":600001}".getBytes(StandardCharsets.UTF_8), "n").optionalInt("n", 0, 600_000));
  }
}
