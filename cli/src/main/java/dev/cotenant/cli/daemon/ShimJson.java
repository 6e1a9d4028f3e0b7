package dev.cotenant.cli.daemon;

import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.RequestId;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.core.json.JsonFactory;

/**
 * The little JSON the shim reads and writes, with Jackson's streaming parser only: the shim loads
 * no data binding, so it starts and runs in as little memory as a JVM allows. It reads the
 * top-level {@code id}, {@code method} and a few hello fields of a message, never the rest, and
 * writes its own error answers from {@link Envelope}'s.
 */
final class ShimJson {
  private static final JsonFactory FACTORY = new JsonFactory();

  private ShimJson() {}

  /**
   * The top-level fields of one JSON object that the shim looks at.
   *
   * @param id the {@code id} as JSON text ({@code 7}, {@code "a"}, {@code null}), null when absent
   * @param requestId the {@code id} when it is a request id (a string or a number), null otherwise
   * @param method the {@code method}, null when absent
   * @param strings the other top-level string fields asked for, in the order asked
   * @param numbers the top-level number fields asked for, as long, -1 when absent
   */
  record Peek(@Nullable String id, @Nullable RequestId requestId, @Nullable String method, String[] strings,
      long[] numbers) {}

  /**
   * Peeks at a line; null when it is not a JSON object.
   *
   * @param stringFields names of top-level string fields to return
   * @param numberFields names of top-level number fields to return
   */
  static @Nullable Peek peek(byte[] line, List<String> stringFields, List<String> numberFields) {
    String id = null;
    RequestId requestId = null;
    String method = null;
    String[] strings = new String[stringFields.size()];
    long[] numbers = new long[numberFields.size()];
    java.util.Arrays.fill(numbers, -1);
    try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (name.equals("id")) {
          id = switch (v) {
            case VALUE_STRING -> quote(p.getString());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getString();
            case VALUE_NULL -> "null";
            default -> null;
          };
          requestId = switch (v) {
            case VALUE_STRING -> RequestId.of(p.getString());
            case VALUE_NUMBER_INT -> RequestId.parse(p.getNumberValue());
            case VALUE_NUMBER_FLOAT -> RequestId.parse(p.getDecimalValue());
            default -> null;
          };
        } else if (name.equals("method") && v == JsonToken.VALUE_STRING) {
          method = p.getString();
        } else if (v == JsonToken.VALUE_STRING && stringFields.contains(name)) {
          strings[stringFields.indexOf(name)] = p.getString();
        } else if (v == JsonToken.VALUE_NUMBER_INT && numberFields.contains(name)) {
          numbers[numberFields.indexOf(name)] = p.getLongValue();
        }
        p.skipChildren();
      }
      return t == JsonToken.END_OBJECT ? new Peek(id, requestId, method, strings, numbers) : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  /** {@code s} as a JSON string literal. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    JsonStringEncoder.getInstance().quoteAsString(s, b);
    return b.append('"').toString();
  }

  /** The shim's hello (see {@link Wire}), naming this process's id. */
  static byte[] hello(String server, List<String> configs) {
    return hello(server, configs, null);
  }

  /**
   * The shim's hello, naming this process's id; with {@code resume} (the client's {@code initialize} line, a JSON object as
   * the client sent it) it asks to resume the session on this daemon (see {@link Wire}).
   */
  static byte[] hello(String server, List<String> configs, byte @Nullable [] resume) {
    StringBuilder b = new StringBuilder("{\"cotenant\":\"connect\",\"version\":").append(Wire.VERSION)
        .append(",\"server\":").append(quote(server)).append(",\"configs\":[");
    for (int i = 0; i < configs.size(); i++) {
      b.append(i == 0 ? "" : ",").append(quote(configs.get(i)));
    }
    b.append("],\"pid\":").append(ProcessHandle.current().pid());
    if (resume != null) {
      b.append(",\"resume\":").append(new String(resume, java.nio.charset.StandardCharsets.UTF_8));
    }
    return b.append("}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A JSON-RPC error answer ({@link Envelope#error}) to the request whose id is {@code idJson},
   * the id written exactly as the client wrote it.
   */
  static byte[] error(String idJson, int code, String message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
      g.writeStartObject();
      for (Map.Entry<String, Object> e : Envelope.error(null, code, message).entrySet()) {
        g.writeName(e.getKey());
        if (e.getKey().equals("id")) {
          g.writeRawValue(idJson);
        } else {
          write(g, e.getValue());
        }
      }
      g.writeEndObject();
    }
    return out.toByteArray();
  }

  /** Writes one of an envelope's values: an object, a string or a whole number. */
  private static void write(JsonGenerator g, Object value) {
    if (value instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeName(String.valueOf(e.getKey()));
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else if (value instanceof Number n) {
      g.writeNumber(n.longValue());
    } else {
      g.writeString(String.valueOf(value));
    }
  }
}
