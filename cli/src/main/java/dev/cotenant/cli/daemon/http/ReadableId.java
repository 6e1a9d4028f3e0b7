package dev.cotenant.cli.daemon.http;

import dev.cotenant.spi.rpc.RequestId;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;

/**
 * The id of a message that could not be read whole, so that its error answer still reaches the
 * request that waits for it: on the socket (a line) and over HTTP (a body). Stateless.
 */
public final class ReadableId {
  private static final JsonFactory JSON = new JsonFactory();

  private ReadableId() {}

  /**
   * The request id a line that is not one JSON object still shows, so that its error answer
   * carries it: the value of a top-level {@code "id"} member (a string or a number) read before
   * whatever makes the line unreadable (nesting deeper than the parser allows, a cut or broken
   * value after it). Null when the line shows none.
   */
  public static @Nullable RequestId in(byte[] line) {
    try (JsonParser p = JSON.createParser(tools.jackson.core.ObjectReadContext.empty(), line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      for (JsonToken t = p.nextToken(); t == JsonToken.PROPERTY_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (value == null) {
          return null;
        }
        if ("id".equals(name)) {
          return switch (value) {
            case VALUE_STRING -> RequestId.of(p.getString());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> RequestId.parse(p.getNumberValue());
            default -> null;
          };
        }
        p.skipChildren();
      }
      return null;
    } catch (JacksonException e) {
      return null;
    }
  }
}
