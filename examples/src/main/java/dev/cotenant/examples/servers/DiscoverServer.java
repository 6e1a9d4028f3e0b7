package dev.cotenant.examples.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small server speaking only the stateless 2026-07-28 protocol era, written directly as
 * newline-delimited JSON-RPC over stdio (the MCP Java SDK 2.1.0 speaks the handshake era).
 *
 * <p>There is no {@code initialize}: {@code server/discover} answers with the supported versions,
 * capabilities and {@code serverInfo}, and every other request must carry the protocol version
 * and client capabilities in its own {@code _meta}
 * ({@code io.modelcontextprotocol/protocolVersion}, {@code .../clientCapabilities}, optionally
 * {@code .../clientInfo}). Tools: {@code echo} (returns {@code text}) and {@code whoami}
 * (returns the {@code clientInfo.name} of that one request). Its answers to
 * {@code server/discover} and {@code tools/list} are the same for every caller, so a pre-flight
 * measures it.
 *
 * <p>An {@code initialize} request, or a request naming another protocol version, is answered
 * with the unsupported-protocol-version error ({@value #UNSUPPORTED_PROTOCOL_VERSION}) listing
 * the supported versions. Unknown methods get method-not-found; lines that are not JSON get a
 * parse error. Logs go to stderr; the process exits when stdin closes.
 */
public final class DiscoverServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-discover";

  /** The only protocol version this server speaks. */
  public static final String PROTOCOL_VERSION = "2026-07-28";

  /** The {@code _meta} key carrying a request's protocol version. */
  public static final String META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

  /** The {@code _meta} key carrying a request's client capabilities. */
  public static final String META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  /** The {@code _meta} key carrying a request's client description. */
  public static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

  /** JSON-RPC error code of the unsupported-protocol-version error. */
  public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

  private static final int PARSE_ERROR = -32700;
  private static final int INVALID_REQUEST = -32600;
  private static final int METHOD_NOT_FOUND = -32601;
  private static final int INVALID_PARAMS = -32602;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final JsonMapper json;
  private final PrintStream out;

  /**
   * A server writing its answers to {@code out}.
   *
   * @param out the protocol output; nothing else may be written to it
   */
  public DiscoverServer(PrintStream out) {
    this.out = out;
    this.json = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(64)
                .maxStringLength(1 << 20)
                .build())
            .build())
        .build();
  }

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    PrintStream protocol = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    try {
      new DiscoverServer(protocol).serve(System.in);
    } catch (IOException e) {
      System.err.println(NAME + ": reading stdin failed: " + e.getMessage());
      System.exit(1);
    }
    System.exit(0);
  }

  /**
   * Answers every request read from {@code in} until end of input.
   *
   * @param in newline-delimited JSON-RPC messages
   * @throws IOException when reading fails
   */
  public void serve(InputStream in) throws IOException {
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    String line;
    while ((line = reader.readLine()) != null) {
      if (!line.isBlank()) {
        ObjectNode answer = answer(line);
        if (answer != null) {
          out.print(json.writeValueAsString(answer));
          out.print('\n');
          out.flush();
        }
      }
    }
  }

  /**
   * The response to one line, or null when the line needs none (a notification, or a response
   * to nothing this server asked).
   *
   * @param line one newline-delimited message
   * @return the JSON-RPC response, or null
   */
  ObjectNode answer(String line) {
    JsonNode message;
    try {
      message = json.readTree(line);
    } catch (JacksonException e) {
      return error(NODES.nullNode(), PARSE_ERROR, "not JSON: " + e.getOriginalMessage());
    }
    if (message == null || !message.isObject()) {
      return error(NODES.nullNode(), INVALID_REQUEST, "a JSON-RPC message must be an object");
    }
    JsonNode method = message.get("method");
    JsonNode id = message.get("id");
    if (method == null || !method.isString()) {
      return id == null ? null : error(id, INVALID_REQUEST, "a request needs a string method");
    }
    if (id == null) {
      System.err.println(NAME + ": ignoring notification " + method.stringValue());
      return null;
    }
    JsonNode params = message.path("params");
    return switch (method.stringValue()) {
      case "server/discover" -> discover(id, params);
      case "initialize" -> unsupportedVersion(id, "initialize is not part of " + PROTOCOL_VERSION
          + "; call server/discover and send _meta with every request", text(params.path("protocolVersion")));
      case "tools/list" -> withMeta(id, params, () -> toolsList(id));
      case "tools/call" -> withMeta(id, params, () -> toolsCall(id, params));
      default -> error(id, METHOD_NOT_FOUND, "method not found: " + method.stringValue());
    };
  }

  private ObjectNode discover(JsonNode id, JsonNode params) {
    JsonNode requested = params.path("_meta").path(META_PROTOCOL_VERSION);
    if (requested.isString() && !PROTOCOL_VERSION.equals(requested.stringValue())) {
      return unsupportedVersion(id, "unsupported protocol version", requested.stringValue());
    }
    ObjectNode result = complete();
    result.put("protocolVersion", PROTOCOL_VERSION);
    result.putArray("supportedVersions").add(PROTOCOL_VERSION);
    result.putObject("capabilities").putObject("tools");
    ObjectNode serverInfo = result.putObject("serverInfo");
    serverInfo.put("name", NAME);
    serverInfo.put("version", StdioServerHost.VERSION);
    result.put("instructions", "A sample server of the stateless protocol era: echo and whoami.");
    return success(id, result);
  }

  private ObjectNode withMeta(JsonNode id, JsonNode params, Supplier<ObjectNode> answer) {
    JsonNode meta = params.path("_meta");
    JsonNode version = meta.path(META_PROTOCOL_VERSION);
    if (!version.isString()) {
      return error(id, INVALID_PARAMS, "every request needs _meta[\"" + META_PROTOCOL_VERSION + "\"]");
    }
    if (!PROTOCOL_VERSION.equals(version.stringValue())) {
      return unsupportedVersion(id, "unsupported protocol version", version.stringValue());
    }
    if (!meta.path(META_CLIENT_CAPABILITIES).isObject()) {
      return error(id, INVALID_PARAMS, "every request needs _meta[\"" + META_CLIENT_CAPABILITIES + "\"]");
    }
    return answer.get();
  }

  private ObjectNode toolsList(JsonNode id) {
    ObjectNode result = complete();
    ArrayNode tools = result.putArray("tools");
    tools.add(tool("echo", "Returns the text argument verbatim.", "text"));
    tools.add(tool("whoami", "Returns the clientInfo.name this request carried.", null));
    return success(id, result);
  }

  private ObjectNode toolsCall(JsonNode id, JsonNode params) {
    String name = text(params.path("name"));
    return switch (name) {
      case "echo" -> {
        JsonNode text = params.path("arguments").path("text");
        yield text.isString()
            ? success(id, toolResult(text.stringValue(), false))
            : success(id, toolResult("echo needs a string argument 'text'", true));
      }
      case "whoami" -> {
        String client = text(params.path("_meta").path(META_CLIENT_INFO).path("name"));
        yield success(id, toolResult("client: " + (client.isEmpty() ? "(unnamed)" : client), false));
      }
      default -> error(id, INVALID_PARAMS, "unknown tool: " + name);
    };
  }

  private static ObjectNode tool(String name, String description, String requiredString) {
    ObjectNode tool = NODES.objectNode();
    tool.put("name", name);
    tool.put("description", description);
    ObjectNode schema = tool.putObject("inputSchema");
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    if (requiredString != null) {
      properties.putObject(requiredString).put("type", "string");
      schema.putArray("required").add(requiredString);
    }
    ObjectNode annotations = tool.putObject("annotations");
    annotations.put("readOnlyHint", true);
    return tool;
  }

  private static ObjectNode toolResult(String text, boolean isError) {
    ObjectNode result = complete();
    ObjectNode content = result.putArray("content").addObject();
    content.put("type", "text");
    content.put("text", text);
    result.put("isError", isError);
    return result;
  }

  private static ObjectNode complete() {
    ObjectNode result = NODES.objectNode();
    result.put("resultType", "complete");
    return result;
  }

  private static ObjectNode success(JsonNode id, ObjectNode result) {
    ObjectNode response = NODES.objectNode();
    response.put("jsonrpc", "2.0");
    response.set("id", id);
    response.set("result", result);
    return response;
  }

  private static ObjectNode unsupportedVersion(JsonNode id, String message, String requested) {
    ObjectNode response = error(id, UNSUPPORTED_PROTOCOL_VERSION, message);
    ObjectNode data = ((ObjectNode) response.get("error")).putObject("data");
    data.putArray("supported").add(PROTOCOL_VERSION);
    if (!requested.isEmpty()) {
      data.put("requested", requested);
    }
    return response;
  }

  private static ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode response = NODES.objectNode();
    response.put("jsonrpc", "2.0");
    response.set("id", id);
    ObjectNode error = response.putObject("error");
    error.put("code", code);
    error.put("message", message);
    return response;
  }

  private static String text(JsonNode node) {
    return node.isString() ? node.stringValue() : "";
  }
}
