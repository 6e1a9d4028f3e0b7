package dev.cotenant.benchmarks;

import dev.cotenant.api.ServerDescription;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * A minimal stateless MCP echo server over stdio (newline-delimited JSON-RPC) for the sharing
 * benchmarks: answers {@code initialize} (2025-06-18, a {@code tools} capability),
 * {@code tools/list} with one read-only {@code echo} tool, {@code tools/call} with one text item
 * holding the call's {@code arguments} exactly as they were written (compact JSON), and
 * {@code ping}; any other request gets "method not found" and notifications are ignored. It keeps
 * no state between calls and serves any number of them, one at a time in the order they arrive,
 * until stdin closes.
 *
 * <p>No JSON library: each line's top-level members are located by a small scanner and the
 * request's {@code id} is echoed verbatim, so start-up and memory are the JVM's alone.
 */
public final class EchoServer {
  /** The protocol version it answers {@code initialize} with, whatever the client asked for. */
  static final String PROTOCOL_VERSION = "2025-06-18";

  private EchoServer() {}

  /**
   * A stdio description of this server named {@code name}: this JVM's {@code java} with the
   * class path of this process, and start-up flags for a small, quick-starting JVM (C1 only,
   * serial GC, no perf data), the same as the pre-flight benchmark's JVM echo server.
   */
  static ServerDescription description(String name) {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    return ServerDescription.stdio(name, java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
        "-Xshare:auto", "-cp", System.getProperty("java.class.path"), EchoServer.class.getName());
  }

  /** Entry point. */
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      String answer = answer(line);
      if (answer != null) {
        out.print(answer);
        out.print('\n');
        out.flush();
      }
    }
  }

  /** The answer to one line, or null when it needs none (a notification, a line that is not a request). */
  static String answer(String line) {
    Map<String, String> message = members(line);
    String id = message == null ? null : message.get("id");
    String method = message == null ? null : message.get("method");
    if (id == null || method == null) {
      return null;
    }
    String head = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",";
    switch (method) {
      case "\"initialize\"":
        return head + "\"result\":{\"protocolVersion\":\"" + PROTOCOL_VERSION + "\","
            + "\"capabilities\":{\"tools\":{\"listChanged\":false}},"
            + "\"serverInfo\":{\"name\":\"echo\",\"version\":\"1.0.0\"}}}";
      case "\"tools/list\"":
        return head + "\"result\":{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes its arguments.\","
            + "\"inputSchema\":{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true}}]}}";
      case "\"tools/call\"":
        String params = message.get("params");
        Map<String, String> p = params == null ? null : members(params);
        String arguments = p == null || p.get("arguments") == null ? "{}" : p.get("arguments");
        return head + "\"result\":{\"content\":[{\"type\":\"text\",\"text\":" + quote(arguments) + "}],\"isError\":false}}";
      case "\"ping\"":
        return head + "\"result\":{}}";
      default:
        return head + "\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}";
    }
  }

  /**
   * The members of the JSON object {@code json}, each key (unescaped only when it has no escapes,
   * which every key read here satisfies) to its value's raw text; null when {@code json} is not an
   * object.
   */
  static Map<String, String> members(String json) {
    Map<String, String> out = new HashMap<>();
    int i = skipBlanks(json, 0);
    if (i >= json.length() || json.charAt(i) != '{') {
      return null;
    }
    i = skipBlanks(json, i + 1);
    if (i < json.length() && json.charAt(i) == '}') {
      return out;
    }
    while (i < json.length()) {
      if (json.charAt(i) != '"') {
        return null;
      }
      int keyEnd = skipValue(json, i);
      if (keyEnd < 0) {
        return null;
      }
      String key = json.substring(i + 1, keyEnd - 1);
      i = skipBlanks(json, keyEnd);
      if (i >= json.length() || json.charAt(i) != ':') {
        return null;
      }
      int start = skipBlanks(json, i + 1);
      int end = skipValue(json, start);
      if (end < 0) {
        return null;
      }
      out.put(key, json.substring(start, end));
      i = skipBlanks(json, end);
      if (i >= json.length()) {
        return null;
      }
      if (json.charAt(i) == '}') {
        return out;
      }
      if (json.charAt(i) != ',') {
        return null;
      }
      i = skipBlanks(json, i + 1);
    }
    return null;
  }

  /** The index just past the JSON value starting at {@code i}; -1 when there is none. */
  private static int skipValue(String s, int i) {
    if (i >= s.length()) {
      return -1;
    }
    char c = s.charAt(i);
    if (c == '"') {
      for (int j = i + 1; j < s.length(); j++) {
        char d = s.charAt(j);
        if (d == '\\') {
          j++;
        } else if (d == '"') {
          return j + 1;
        }
      }
      return -1;
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      for (int j = i; j < s.length(); j++) {
        char d = s.charAt(j);
        if (d == '"') {
          j = skipValue(s, j);
          if (j < 0) {
            return -1;
          }
          j--;
        } else if (d == '{' || d == '[') {
          depth++;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) {
            return j + 1;
          }
        }
      }
      return -1;
    }
    int j = i;
    while (j < s.length() && ",}] \t\r\n".indexOf(s.charAt(j)) < 0) {
      j++;
    }
    return j == i ? -1 : j;
  }

  private static int skipBlanks(String s, int i) {
    while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  /** {@code text} as a JSON string. */
  static String quote(String text) {
    StringBuilder b = new StringBuilder(text.length() + 8).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          b.append("\\\"");
          break;
        case '\\':
          b.append("\\\\");
          break;
        case '\n':
          b.append("\\n");
          break;
        case '\r':
          b.append("\\r");
          break;
        case '\t':
          b.append("\\t");
          break;
        default:
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.append('"').toString();
  }
}
