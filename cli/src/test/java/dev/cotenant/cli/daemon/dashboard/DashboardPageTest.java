package dev.cotenant.cli.daemon.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ReasonCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's files as text: nothing in them reaches beyond the daemon, every reason code of
 * the closed vocabulary has a plain-language meaning in {@code views.js}, and every document it
 * names exists in {@code docs/} with the heading its anchor points at.
 */
class DashboardPageTest {
  private static final Path DOCS = Path.of("").toAbsolutePath().getParent().resolve("docs");

  private static String resource(String file) throws IOException {
    try (InputStream in = DashboardHandler.class.getResourceAsStream(DashboardHandler.RESOURCES + file)) {
      assertTrue(in != null, file + " is on the class path");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void nothingLoadsFromAnywhereElseAndNothingIsInline() throws IOException {
    for (String file : List.of("index.html", "views.js", "app.js", "style.css")) {
      String text = resource(file);
      assertFalse(Pattern.compile("(?i)https?:|//[a-z0-9.-]+\\.[a-z]{2,}/|@import|url\\(").matcher(text).find(),
          file + " names no address elsewhere, imports nothing");
    }
    String html = resource("index.html");
    assertFalse(Pattern.compile("(?i)<script>|<script [^>]*>[^<]+</script>|<style|\\sstyle=|\\son[a-z]+=").matcher(html).find(),
        "no inline script, style or handler: the policy (default-src 'self') would refuse them");
    for (String script : List.of("views.js", "app.js")) {
      assertFalse(resource(script).contains("innerHTML"), script + ": the page builds its DOM from text, never from markup");
    }
  }

  /**
   * The page speaks the words users know (route, share, dedicated), not the design's "stub": no
   * text or attribute of the page says it, but for the configuration key it names.
   */
  @Test
  void thePageSaysRouteNotStub() throws IOException {
    String html = resource("index.html").replace("cotenant.stubOverrides", "");
    Matcher m = Pattern.compile("(?i)stub").matcher(html);
    if (m.find()) {
      throw new AssertionError("index.html says stub: ..." + html.substring(Math.max(0, m.start() - 60),
          Math.min(html.length(), m.end() + 60)) + "...");
    }
  }

  @Test
  void everyReasonCodeHasAMeaningAndADocument() throws IOException {
    String js = resource("views.js");
    int start = js.indexOf("const REASONS = {");
    int end = js.indexOf("\n  };", start);
    assertTrue(start >= 0 && end > start, "views.js has its REASONS map");
    String map = js.substring(start, end);
    Set<String> keys = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^\\s+([a-z_]+): \\[").matcher(map);
    while (m.find()) {
      keys.add(m.group(1));
    }
    Set<String> codes = new TreeSet<>();
    for (ReasonCode c : ReasonCode.values()) {
      codes.add(c.wireName());
    }
    assertEquals(codes, keys, "the REASONS map of views.js covers exactly the reason codes");
  }

  @Test
  void everyDocumentTheDashboardNamesExistsWithItsHeading() throws IOException {
    Set<String> refs = new LinkedHashSet<>();
    for (String file : List.of("index.html", "views.js", "app.js")) {
      Matcher m = Pattern.compile("docs/([a-z-]+\\.md)#([a-z0-9-]+)").matcher(resource(file));
      while (m.find()) {
        refs.add(m.group(1) + "#" + m.group(2));
      }
    }
    assertTrue(refs.size() >= 5, "the page names its documents: " + refs);
    for (String ref : refs) {
      String[] parts = ref.split("#");
      Path doc = DOCS.resolve(parts[0]);
      assertTrue(Files.isRegularFile(doc), doc + " exists");
      Set<String> anchors = new TreeSet<>();
      for (String line : Files.readAllLines(doc)) {
        if (line.startsWith("#")) {
          anchors.add(slug(line.replaceFirst("^#+\\s*", "")));
        }
      }
      assertTrue(anchors.contains(parts[1]), ref + " names a heading of " + doc + ": " + anchors);
    }
  }

  /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }
}
