package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cotenant.gateway.probe.ProbePlan.Arguments;
import dev.cotenant.gateway.probe.ProbePlan.Include;
import dev.cotenant.gateway.probe.ProbePlan.Skip;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProbePlanTest {
  /** The plan of the format's documentation. */
  private static final String EXAMPLE = "{\"tools\": {\n"
      + "  \"gzip-file-as-resource\": {\"arguments\": {\"name\": \"{marker}.gz\", \"data\": \"data:text/plain,{marker}\"}},\n"
      + "  \"delete-everything\": {\"skip\": \"wipes the operator's data; covered by the vendor's own isolation tests\"},\n"
      + "  \"wipe_scratch\": {\"include\": true}\n"
      + "}}\n";

  @TempDir Path dir;

  private Path write(String name, byte[] bytes) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return file;
  }

  private Path write(String name, String text) throws IOException {
    return write(name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** The message of the refusal of {@code json}, checked to be one short line naming {@code plan.json}. */
  private static String refusal(String json) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.parse("plan.json", json));
    assertOneLine(e.getMessage());
    assertTrue(e.getMessage().startsWith("plan.json: "), e.getMessage());
    return e.getMessage();
  }

  private static void assertRefused(String json, String... parts) {
    String message = refusal(json);
    for (String part : parts) {
      assertTrue(message.contains(part), () -> "expected \"" + part + "\" in: " + message);
    }
  }

  private static void assertOneLine(String message) {
    assertFalse(message.contains("\n") || message.contains("\r"), message);
    assertTrue(message.length() < 600, message);
  }

  // --- Accepted forms. ---

  @Test
  void theDocumentedExampleReadsAsEachEntrySays() throws IOException {
    ProbePlan plan = ProbePlan.read(write("plan.json", EXAMPLE));
    assertEquals(List.of("gzip-file-as-resource", "delete-everything", "wipe_scratch"), List.copyOf(plan.tools()));

    ArgumentTemplate gzip = assertInstanceOf(Arguments.class, plan.entry("gzip-file-as-resource").orElseThrow()).template();
    assertEquals("{\"name\":\"{marker}.gz\",\"data\":\"data:text/plain,{marker}\"}", gzip.toString());
    assertEquals(Map.of("name", "alpha-1-x.gz", "data", "data:text/plain,alpha-1-x"), gzip.render("alpha-1-x", "ws"));

    assertEquals("wipes the operator's data; covered by the vendor's own isolation tests",
        assertInstanceOf(Skip.class, plan.entry("delete-everything").orElseThrow()).reason());
    assertInstanceOf(Include.class, plan.entry("wipe_scratch").orElseThrow());

    assertEquals(Optional.empty(), plan.entry("echo"));
    assertEquals(Optional.empty(), plan.entry("Wipe_Scratch"), "tool names are case-sensitive");
    assertThrows(UnsupportedOperationException.class, () -> plan.tools().add("echo"));
  }

  @Test
  void toStringNamesThePlanAndEveryEntryOnOneLine() throws IOException {
    Path file = write("plan.json", EXAMPLE);
    String text = ProbePlan.read(file).toString();
    assertEquals(file + ": gzip-file-as-resource: arguments {\"name\":\"{marker}.gz\",\"data\":\"data:text/plain,{marker}\"}; "
        + "delete-everything: skip \"wipes the operator's data; covered by the vendor's own isolation tests\"; "
        + "wipe_scratch: include", text);
    assertEquals("plan: no tools", ProbePlan.parse("plan", "{\"tools\": {}}").toString());
    String odd = ProbePlan.parse("p", "{\"tools\": {\"a\\nb\": {\"skip\": \"why\\u001b[31m\"}}}").toString();
    assertEquals("p: a\\nb: skip \"why\\u001b[31m\"", odd);
  }

  @Test
  void theEmptyPlanNamesNoTool() {
    assertEquals(Optional.empty(), ProbePlan.empty().entry("anything"));
    assertTrue(ProbePlan.empty().tools().isEmpty());
    assertTrue(ProbePlan.parse("--plan", "{\"tools\": {}}").tools().isEmpty());
    assertTrue(ProbePlan.parse("--plan", " {\"tools\":{}} \n").tools().isEmpty());
  }

  @Test
  void argumentsMayBeAnyObjectAndNeedNoMarker() {
    ProbePlan plan = ProbePlan.parse("--plan", "{\"tools\": {"
        + "\"none\": {\"arguments\": {}},"
        + "\"typed\": {\"arguments\": {\"n\": 0.1, \"big\": 12345678901234567890, \"b\": false, \"z\": null,"
        + " \"deep\": [{\"w\": \"{workspace}\"}]}}}}");
    assertEquals("{}", ((Arguments) plan.entry("none").orElseThrow()).template().toString());
    ArgumentTemplate typed = ((Arguments) plan.entry("typed").orElseThrow()).template();
    assertEquals("{\"n\":0.1,\"big\":12345678901234567890,\"b\":false,\"z\":null,\"deep\":[{\"w\":\"{workspace}\"}]}",
        typed.toString());
    assertFalse(typed.carriesMarker());
  }

  @Test
  void argumentsNestUpToTheTemplatesDepth() {
    String ok = "{\"a\":".repeat(ArgumentTemplate.MAX_DEPTH - 1) + "{}" + "}".repeat(ArgumentTemplate.MAX_DEPTH - 1);
    ProbePlan.parse("--plan", "{\"tools\": {\"t\": {\"arguments\": " + ok + "}}}");
    String deep = "{\"a\":" + ok + "}";
    assertRefused("{\"tools\": {\"t\": {\"arguments\": " + deep + "}}}",
        "tool \"t\"", "key \"arguments\"", "deeper than 32 levels");
  }

  @Test
  void nonAsciiUtf8IsRead() throws IOException {
    ProbePlan plan = ProbePlan.read(write("plan.json", "{\"tools\": {\"löschen\": {\"skip\": \"löscht alles — ✓ 😀\"}}}"));
    assertEquals("löscht alles — ✓ 😀", ((Skip) plan.entry("löschen").orElseThrow()).reason());
  }

  // --- Refusals of the format: each names the file, the tool and the key. ---

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"tools\": {}, \"tool\": {}}                          | unknown key \"tool\" at the top level",
      "{\"tool\": {}}                                         | unknown key \"tool\" at the top level",
      "{}                                                     | has no \"tools\" object",
      "{\"tools\": []}                                        | \"tools\" must be an object mapping tool names to entries, found an array",
      "{\"tools\": null}                                      | \"tools\" must be an object mapping tool names to entries, found null",
      "[]                                                     | must be a JSON object with \"tools\", found an array",
      "\"tools\"                                              | must be a JSON object with \"tools\", found a string",
      "null                                                   | must be a JSON object with \"tools\", found null",
      "{\"tools\": {\"\": {\"include\": true}}}               | a tool in \"tools\" has an empty name",
  })
  void topLevelRefusals(String json, String expected) {
    assertRefused(json, "plan.json: " + expected);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"echo\": \"skip\"}                                      | tool \"echo\": must be an object with one of",
      "{\"echo\": {}}                                            | tool \"echo\": is empty; give one of \"arguments\", \"skip\" or \"include\"",
      "{\"echo\": {\"argument\": {}}}                            | tool \"echo\": unknown key \"argument\"",
      "{\"echo\": {\"skip\": \"x\", \"because\": \"y\"}}         | tool \"echo\": unknown key \"because\"",
      "{\"echo\": {\"arguments\": {}, \"skip\": \"x\"}}          | tool \"echo\": has both \"arguments\" and \"skip\"",
      "{\"echo\": {\"skip\": \"x\", \"include\": true}}          | tool \"echo\": has both \"skip\" and \"include\"",
      "{\"echo\": {\"include\": true, \"arguments\": {}}}        | tool \"echo\": has both \"include\" and \"arguments\"",
      "{\"echo\": {\"arguments\": \"{}\"}}                       | tool \"echo\": key \"arguments\" must be a JSON object of tool arguments, found a string",
      "{\"echo\": {\"arguments\": []}}                           | tool \"echo\": key \"arguments\" must be a JSON object of tool arguments, found an array",
      "{\"echo\": {\"arguments\": null}}                         | tool \"echo\": key \"arguments\" must be a JSON object of tool arguments, found null",
      "{\"echo\": {\"skip\": \"\"}}                              | tool \"echo\": key \"skip\" is empty",
      "{\"echo\": {\"skip\": \" \\t \"}}                         | tool \"echo\": key \"skip\" is empty",
      "{\"echo\": {\"skip\": true}}                              | tool \"echo\": key \"skip\" must be a string, the reason, found a boolean",
      "{\"echo\": {\"skip\": 1}}                                 | tool \"echo\": key \"skip\" must be a string, the reason, found a number",
      "{\"echo\": {\"include\": false}}                          | tool \"echo\": key \"include\" is false; omit the entry instead",
      "{\"echo\": {\"include\": \"true\"}}                       | tool \"echo\": key \"include\" must be true, found a string",
      "{\"echo\": {\"include\": 1}}                              | tool \"echo\": key \"include\" must be true, found a number",
  })
  void entryRefusals(String tools, String expected) {
    assertRefused("{\"tools\": " + tools + "}", "plan.json: " + expected);
  }

  @Test
  void aToolNameIsEscapedInMessages() {
    String message = refusal("{\"tools\": {\"ev\\u001bil\\nname\": {\"skip\": \"\"}}}");
    assertTrue(message.contains("tool \"ev\\u001bil\\nname\": key \"skip\""), message);
  }

  @Test
  void theLaterEntriesAreCheckedToo() {
    assertRefused("{\"tools\": {\"ok\": {\"include\": true}, \"bad\": {\"include\": false}}}", "tool \"bad\"");
  }

  // --- Refusals of the JSON. ---

  @Test
  void invalidJsonIsRefusedWithItsLineAndColumn() {
    assertRefused("{\n  \"tools\": {\n    \"echo\": {\"skip\": \"x\",}\n  }\n}", "is not valid JSON at line 3, column");
    assertRefused("{\"tools\": {}", "is not valid JSON at line 1");
    assertRefused("{\"tools\": {}} {}", "is not valid JSON at line 1, column", "Trailing token");
    assertRefused("{'tools': {}}", "is not valid JSON");
    assertRefused("// a comment\n{\"tools\": {}}", "is not valid JSON at line 1");
  }

  @Test
  void duplicateKeysAreRefusedAnywhere() {
    assertRefused("{\"tools\": {},\n \"tools\": {}}", "is not valid JSON at line 2", "Duplicate", "\"tools\"");
    assertRefused("{\"tools\": {\n \"echo\": {\"include\": true},\n \"echo\": {\"skip\": \"x\"}}}",
        "at line 3", "Duplicate", "\"echo\"");
    assertRefused("{\"tools\": {\"echo\": {\"skip\": \"x\", \"skip\": \"y\"}}}", "Duplicate", "\"skip\"");
    assertRefused("{\"tools\": {\"echo\": {\"arguments\": {\"a\": 1, \"a\": 2}}}}", "Duplicate", "\"a\"");
  }

  @Test
  void emptyTextIsRefused() {
    assertRefused("", "is empty");
    assertRefused(" \n\t", "is empty");
  }

  @Test
  void nestingBeyondTheParsersBoundIsRefusedWithoutAStackTrace() {
    String deep = "[".repeat(5000) + "]".repeat(5000);
    assertRefused("{\"tools\": {\"t\": {\"arguments\": {\"a\": " + deep + "}}}}", "nests deeper than 64 levels");
  }

  // --- Files. ---

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("nope.json");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(missing));
    assertEquals(missing + ": no such file", e.getMessage());
  }

  @Test
  void aDirectoryIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(dir));
    assertEquals(dir + ": is a directory; expected a probe plan (a JSON file)", e.getMessage());
  }

  @Test
  void aFifoIsRefusedBeforeAnyByteIsRead() throws Exception {
    Path fifo = dir.resolve("fifo");
    Process p;
    try {
      p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    } catch (IOException e) {
      assumeTrue(false, "no mkfifo");
      return;
    }
    assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo failed");
    // Reading a FIFO nobody writes would block; the refusal must come first.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(fifo));
    assertTrue(e.getMessage().startsWith(fifo + ": is not a regular file"), e.getMessage());
  }

  /**
   * A regular file whose read fails (whoever runs the test, root included): Linux's
   * {@code /proc/self/mem} refuses a read at offset 0 with an I/O error.
   */
  @Test
  void aFileWhoseReadFailsIsNamedWithTheError() {
    Path mem = Path.of("/proc/self/mem");
    assertTrue(Files.isRegularFile(mem), "this test needs Linux's /proc/self/mem");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(mem));
    assertTrue(e.getMessage().startsWith(mem + ": cannot be read: "), e.getMessage());
  }

  @Test
  void anEmptyFileIsRefused() throws IOException {
    Path file = write("plan.json", new byte[0]);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(file));
    assertEquals(file + ": is empty; expected a JSON object with \"tools\"", e.getMessage());
  }

  @Test
  void oneMebibyteIsReadOneByteMoreIsNot() throws IOException {
    String plan = "{\"tools\": {\"t\": {\"include\": true}}}";
    byte[] exact = (plan + " ".repeat(ProbePlan.MAX_BYTES - plan.length())).getBytes(StandardCharsets.UTF_8);
    assertEquals(1 << 20, exact.length);
    assertEquals(List.of("t"), List.copyOf(ProbePlan.read(write("exact.json", exact)).tools()));

    Path over = write("over.json", (plan + " ".repeat(ProbePlan.MAX_BYTES - plan.length() + 1)).getBytes(StandardCharsets.UTF_8));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(over));
    assertEquals(over + ": is too large (1048577 bytes; a probe plan is at most 1048576 bytes)", e.getMessage());

    String text = plan + " ".repeat(ProbePlan.MAX_BYTES - plan.length() + 1);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ProbePlan.parse("--plan", text)).getMessage()
        .startsWith("--plan: is too large (1048577 characters"));
  }

  @Test
  void aByteOrderMarkIsRefused() throws IOException {
    byte[] plan = "{\"tools\": {}}".getBytes(StandardCharsets.UTF_8);
    byte[] withBom = new byte[plan.length + 3];
    withBom[0] = (byte) 0xEF;
    withBom[1] = (byte) 0xBB;
    withBom[2] = (byte) 0xBF;
    System.arraycopy(plan, 0, withBom, 3, plan.length);
    Path file = write("bom.json", withBom);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(file));
    assertEquals(file + ": starts with a byte-order mark; save the plan as UTF-8 without one", e.getMessage());
    // The same plan without the mark is read.
    assertTrue(ProbePlan.read(write("plain.json", plan)).tools().isEmpty());
  }

  @Test
  void onlyUtf8IsRead() throws IOException {
    Path latin1 = write("latin1.json", "{\"tools\": {\"l\u00f6schen\": {\"include\": true}}}".getBytes(StandardCharsets.ISO_8859_1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(latin1));
    assertEquals(latin1 + ": is not UTF-8 (at byte 13); save the plan as UTF-8", e.getMessage());

    Path utf16 = write("utf16.json", "\uFEFF{\"tools\": {}}".getBytes(StandardCharsets.UTF_16LE));
    IllegalArgumentException e16 = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(utf16));
    assertEquals(utf16 + ": is not UTF-8 (at byte 0); save the plan as UTF-8", e16.getMessage());
  }

  @Test
  void aFormatRefusalFromAFileNamesTheFile() throws IOException {
    Path file = write("plan.json", "{\"tools\": {\"echo\": {\"include\": false}}}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(file));
    assertEquals(file + ": tool \"echo\": key \"include\" is false; omit the entry instead (include only says true)",
        e.getMessage());
  }

  @Test
  void aFileNameWithAControlCharacterIsEscaped() throws IOException {
    Path file = dir.resolve("odd\nname.json");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbePlan.read(file));
    assertOneLine(e.getMessage());
    assertTrue(e.getMessage().contains("odd\\nname.json: no such file"), e.getMessage());
  }
}
