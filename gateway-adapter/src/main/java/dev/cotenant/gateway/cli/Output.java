package dev.cotenant.gateway.cli;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.Reason;
import dev.cotenant.gateway.rows.Row;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How commands print: aligned tables for people, one JSON document for programs. Every text a
 * server or a file chose (names, details, paths) is escaped with {@link LogSafe} in a table, so
 * one cell is one line; JSON carries it verbatim.
 */
public final class Output {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  /** The longest a table cell may be before it is cut. */
  private static final int CELL_MAX = 500;

  private Output() {}

  /** A new JSON object. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** Prints {@code node} as one line of JSON. */
  public static void json(PrintWriter out, ObjectNode node) {
    out.println(MAPPER.writeValueAsString(node));
  }

  /**
   * The rows as {@code {"servers":[{"name","source","strength","recommendStub","recommendShare",
   * "reasons":[{"code","detail"}]}]}}.
   */
  public static ObjectNode rowsJson(List<Row> rows) {
    ObjectNode root = object();
    ArrayNode servers = root.putArray("servers");
    for (Row r : rows) {
      ObjectNode s = servers.addObject();
      s.put("name", r.name());
      s.put("source", r.source());
      s.put("strength", r.strength().wireName());
      s.put("recommendStub", r.recommendStub());
      s.put("recommendShare", r.recommendShare());
      ArrayNode reasons = s.putArray("reasons");
      for (Reason reason : r.reasons()) {
        ObjectNode o = reasons.addObject();
        o.put("code", reason.code().wireName());
        o.put("detail", reason.detail());
      }
    }
    return root;
  }

  /** Prints the rows as a table (NAME STRENGTH STUB SHARE SOURCE REASONS) or as JSON. */
  public static void rows(PrintWriter out, List<Row> rows, boolean json) {
    if (json) {
      json(out, rowsJson(rows));
      return;
    }
    List<List<String>> table = new ArrayList<>();
    table.add(List.of("NAME", "STRENGTH", "STUB", "SHARE", "SOURCE", "REASONS"));
    for (Row r : rows) {
      table.add(
          List.of(
              cell(r.name()),
              r.strength().wireName(),
              yesNo(r.recommendStub()),
              yesNo(r.recommendShare()),
              cell(r.source()),
              r.reasons().stream().map(Output::reason).collect(Collectors.joining(", "))));
    }
    table(out, table);
  }

  /** {@code code} or {@code code(detail)} with the detail escaped. */
  static String reason(Reason r) {
    return r.detail().isEmpty() ? r.code().wireName() : r.code().wireName() + "(" + LogSafe.escape(r.detail()) + ")";
  }

  /** {@code text} escaped and bounded for one table cell. */
  public static String cell(String text) {
    return LogSafe.escape(text, CELL_MAX);
  }

  static String yesNo(boolean b) {
    return b ? "yes" : "no";
  }

  /**
   * Prints {@code rows} (the first is the header) with columns aligned by two spaces; the last
   * column is not padded. Cells must already be escaped.
   */
  public static void table(PrintWriter out, List<List<String>> rows) {
    if (rows.isEmpty()) {
      return;
    }
    int cols = rows.get(0).size();
    int[] width = new int[cols];
    for (List<String> row : rows) {
      for (int i = 0; i < cols; i++) {
        width[i] = Math.max(width[i], row.get(i).codePointCount(0, row.get(i).length()));
      }
    }
    for (List<String> row : rows) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < cols; i++) {
        String c = row.get(i);
        sb.append(c);
        if (i < cols - 1) {
          sb.append(" ".repeat(width[i] - c.codePointCount(0, c.length()) + 2));
        }
      }
      out.println(sb.toString().stripTrailing());
    }
  }
}
