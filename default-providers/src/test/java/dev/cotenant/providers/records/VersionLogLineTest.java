package dev.cotenant.providers.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.spi.PreflightRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A version the server chose reaches the log escaped and bounded. slf4j-simple writes to the
 * current {@code System.err} on every call (its default, {@code cacheOutputStream=false}), so
 * swapping {@code System.err} captures the line.
 */
class VersionLogLineTest {
  @TempDir Path dir;

  @Test
  void aReportedVersionWithNewlineAndEscReachesALogLineEscapedAndBounded() throws Exception {
    String id = Fixtures.cacheKey("srv", ExecutionIdentity.PREFLIGHT_SCHEMA);
    String hostile = "1.0\nFORGED gateway log entry\u001b[31mred" + "x".repeat(10_000);
    FilePreflightCache c = FilePreflightCache.open(dir);
    c.put(new PreflightRecord("srv", id, true, false, List.of(), 1.0, Optional.of(hostile), Optional.empty()));

    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertEquals(Optional.empty(), c.lookup("srv", id, Optional.of("2.0\n\u001b]0;title\u0007")));
    } finally {
      System.setErr(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    List<String> lines = out.lines().filter(l -> l.contains("dropped the pre-flight row of server srv")).toList();
    assertEquals(1, lines.size(), out);
    String line = lines.get(0);
    assertFalse(out.lines().anyMatch(l -> l.startsWith("FORGED")), "a newline in the version forged a log line");
    assertFalse(out.contains("\u001b"), "a raw ESC reached the log");
    assertFalse(out.contains("\u0007"), "a raw BEL reached the log");
    assertTrue(line.contains("1.0\\nFORGED gateway log entry\\u001b[31mred"), line);
    assertTrue(line.contains("2.0\\n\\u001b]0;title\\u0007"), line);
    assertTrue(line.length() < 1_000, "the line is bounded: " + line.length() + " characters");
    assertTrue(line.contains("…"), "the cut is marked");
  }
}
