package dev.cotenant.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A minimal stateless echo-like MCP server over stdio for the pre-flight benchmark: answers
 * {@code initialize} (2025-06-18), {@code tools/list} with one {@code echo} tool, {@code ping},
 * and {@code server/discover} with "method not found", as a legacy server does. No JSON library,
 * so its start-up cost is the JVM's alone. Exits when stdin closes.
 */
public final class PreflightEchoServer {
  private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
  private static final Pattern METHOD = Pattern.compile("\"method\":\"([^\"]+)\"");

  private PreflightEchoServer() {}

  /** Entry point. */
  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      Matcher m = METHOD.matcher(line);
      Matcher i = ID.matcher(line);
      if (!m.find() || !i.find()) {
        continue;
      }
      String id = i.group(1);
      switch (m.group(1)) {
        case "initialize":
          out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"protocolVersion\":\"2025-06-18\","
              + "\"capabilities\":{\"tools\":{\"listChanged\":false}},\"serverInfo\":{\"name\":\"echo\",\"version\":\"1.0.0\"}}}");
          break;
        case "tools/list":
          out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"tools\":[{\"name\":\"echo\","
              + "\"description\":\"Echoes its input.\",\"inputSchema\":{\"type\":\"object\"},"
              + "\"annotations\":{\"readOnlyHint\":true}}]}}");
          break;
        case "ping":
          out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}");
          break;
        default:
          out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
      }
      out.flush();
    }
  }
}
