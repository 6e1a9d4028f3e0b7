package dev.cotenant.cli.views;

import dev.cotenant.api.LogSafe;
import dev.cotenant.api.Reason;
import dev.cotenant.gateway.rows.Row;
import dev.cotenant.gateway.sharing.PlacementDecision;
import dev.cotenant.gateway.sharing.SharingSettings;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How commands, and the daemon's API, print: aligned tables for people, one JSON document for programs. Every text a
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
    out.println(text(node));
  }

  /** {@code node} as one line of JSON, as {@link #json} prints it. */
  public static String text(tools.jackson.databind.JsonNode node) {
    return MAPPER.writeValueAsString(node);
  }

  /**
   * The rows as {@code {"servers":[{"name","source","strength","recommendStub","recommendShare",
   * "reasons":[{"code","detail"}]}]}}, each with {@code "placement"} ({@code shared} or
   * {@code dedicated}: where a new session of the server goes under {@code sharing},
   * {@link PlacementDecision}) and {@code "forced"} (an operator's override) when
   * {@code sharing} is given.
   */
  public static ObjectNode rowsJson(List<Row> rows, Optional<SharingSettings> sharing) {
    ObjectNode root = object();
    ArrayNode servers = root.putArray("servers");
    for (Row r : rows) {
      ObjectNode s = servers.addObject();
      s.put("name", r.name());
      s.put("source", r.source());
      s.put("strength", r.strength().wireName());
      s.put("recommendStub", r.recommendStub());
      s.put("recommendShare", r.recommendShare());
      sharing.ifPresent(settings -> {
        PlacementDecision d = PlacementDecision.decide(r.name(), r.verdict(), settings);
        s.put("placement", d.placement().name().toLowerCase(java.util.Locale.ROOT));
        s.put("forced", d.forced());
      });
      ArrayNode reasons = s.putArray("reasons");
      for (Reason reason : r.reasons()) {
        ObjectNode o = reasons.addObject();
        o.put("code", reason.code().wireName());
        o.put("detail", reason.detail());
      }
    }
    return root;
  }

  /**
   * Prints the rows as a table (NAME STRENGTH STUB SHARE SOURCE REASONS) or as JSON with each
   * row's placement. A server an operator forced to share says {@code forced} in the SHARE column.
   */
  public static void rows(PrintWriter out, List<Row> rows, boolean json, SharingSettings sharing) {
    if (json) {
      json(out, rowsJson(rows, Optional.of(sharing)));
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
              sharing.forced().contains(r.name()) ? "forced" : yesNo(r.recommendShare()),
              cell(r.source()),
              r.reasons().stream().map(Output::reason).collect(Collectors.joining(", "))));
    }
    table(out, table);
  }

  /** {@code code} or {@code code(detail)} with the detail escaped. */
  public static String reason(Reason r) {
    return r.detail().isEmpty() ? r.code().wireName() : r.code().wireName() + "(" + LogSafe.escape(r.detail()) + ")";
  }

  /** {@code text} escaped and bounded for one table cell. */
  public static String cell(String text) {
    return LogSafe.escape(text, CELL_MAX);
  }

  /** {@code yes} or {@code no}, for a table cell. */
  public static String yesNo(boolean b) {
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
