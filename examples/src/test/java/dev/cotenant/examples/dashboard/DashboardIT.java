package dev.cotenant.examples.dashboard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.examples.daemon.DaemonFixture;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard in a real browser (Debian's Chromium, headless) against the real daemon
 * ({@code cotenant serve} from the packaged jar, or started by a shim) over a copy of
 * {@code examples/mcp.json}: a measure started from the page and each row's next step, routing
 * selected servers by keyboard, the backends panel of a shared backend and what sharing costs in
 * all, a hazard shown with its time and cleared, a daemon a shim started showing, measuring and
 * sharing the servers of the file its shim named, and the token's handling. Each test saves a screenshot under
 * {@code examples/target/screenshots/}; with {@code -Dcotenant.docs.screenshot=true}, the full page
 * after the measure is also written to {@code docs/dashboard.png}.
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class DashboardIT {
  private static final Path SCREENSHOTS = DaemonFixture.ROOT.resolve("examples/target/screenshots");
  private static final Path DOCS_SCREENSHOT = DaemonFixture.ROOT.resolve("docs/dashboard.png");
  private static final Duration MEASURE_BOUND = Duration.ofMinutes(5);
  private static final Duration WAIT = DaemonFixture.BOUND;

  @BeforeAll
  static void chromiumIsInstalled() {
    Browser.requireInstalled();
  }

  private static String base(DaemonFixture f) {
    return "http://127.0.0.1:" + f.state().orElseThrow().path("port").asInt() + "/";
  }

  /** Opens the dashboard the way {@code cotenant dashboard} says to, and checks it names it. */
  private static void open(Browser b, DaemonFixture f) throws Exception {
    DaemonFixture.Run printed = f.run("dashboard");
    assertEquals(0, printed.code(), printed.err());
    String url = printed.out().strip();
    assertEquals(base(f) + "#token=" + f.token(), url);
    b.driver.get(url);
  }

  /** {@code GET /api/PATH} of the daemon, with its token. */
  private static JsonNode api(DaemonFixture f, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base(f) + "api/" + path))
        .timeout(WAIT).header("Authorization", "Bearer " + f.token()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return DaemonFixture.JSON.readTree(r.body());
  }

  /** {@code N process} or {@code N processes}, as the page writes it. */
  private static String processes(long n) {
    return n + (n == 1 ? " process" : " processes");
  }

  private static Object js(Browser b, String script, Object... args) {
    return ((JavascriptExecutor) b.driver).executeScript(script, args);
  }

  private static <T> T await(Browser b, Duration bound, String what, java.util.function.Supplier<T> condition) {
    try {
      return new WebDriverWait(b.driver, bound, Duration.ofMillis(100)).withMessage(what).until(d -> {
        T v = condition.get();
        return v instanceof Boolean bool && !bool ? null : v;
      });
    } catch (WebDriverException e) {
      throw new AssertionError(what + "; the page said: " + js(b, "return document.body.innerText;"), e);
    }
  }

  /** The strength a row shows in words (its badge's text), or null when the table has no row for {@code server}. */
  private static String strength(Browser b, String server) {
    return (String) js(b, "const r = document.querySelector('#servers-body tr[data-server=\"' + CSS.escape(arguments[0]) + '\"]');"
        + " return r ? r.querySelector('.strength').textContent : null;", server);
  }

  /** The next step a row shows ({@code data-next}), or null when the table has no row for {@code server}. */
  private static String next(Browser b, String server) {
    return (String) js(b, "const r = document.querySelector('#servers-body tr[data-server=\"' + CSS.escape(arguments[0]) + '\"]');"
        + " return r ? r.querySelector('.next-step').dataset.next : null;", server);
  }

  /** The text of a row's next-step cell. */
  private static String nextText(Browser b, String server) {
    return (String) js(b, "return document.querySelector('#servers-body tr[data-server=\"' + CSS.escape(arguments[0])"
        + " + '\"] .next-step').innerText;", server);
  }

  /** The page's text without the configuration key it names: the word users do not know must not show. */
  private static void saysNoStub(Browser b, String where) {
    String text = (String) js(b, "return document.body.innerText.replace(/cotenant\\.stubOverrides/g, '');");
    assertFalse(text.toLowerCase(java.util.Locale.ROOT).contains("stub"), where + ": " + text);
  }

  /** The names in the rows the page shows. */
  @SuppressWarnings("unchecked")
  private static Set<String> rowNames(Browser b) {
    return new TreeSet<>((List<String>) js(b,
        "return Array.from(document.querySelectorAll('#servers-body tr')).map(r => r.dataset.server);"));
  }

  private static Set<String> configured(Path config) throws Exception {
    Set<String> names = new TreeSet<>();
    DaemonFixture.JSON.readTree(config.toFile()).path("mcpServers").propertyNames().forEach(names::add);
    return names;
  }

  private static void screenshot(Browser b, String name) throws Exception {
    b.screenshot(SCREENSHOTS.resolve(name + ".png"), true);
  }

  /** Presses {@code key} (Tab, or Shift+Tab) until the element {@code id} has the focus. */
  private static void tabTo(Browser b, String id, CharSequence key) {
    for (int i = 0; i < 300; i++) {
      if (id.equals(js(b, "return document.activeElement ? document.activeElement.id : '';"))) {
        return;
      }
      new Actions(b.driver).sendKeys(key).perform();
    }
    fail("the keyboard did not reach #" + id);
  }

  private static void press(Browser b, CharSequence key) {
    new Actions(b.driver).sendKeys(key).perform();
  }

  @Test
  void aMeasureStartedFromThePageMovesItsProgressAndTheRowsThenShowMeasuredStrengths(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    Set<String> names = configured(config);
    try (DaemonFixture f = new DaemonFixture(config)) {
      f.serve();
      try (Browser b = new Browser(SCREENSHOTS)) {
        open(b, f);
        await(b, WAIT, "every configured server has a row", () -> rowNames(b).equals(names));
        assertEquals("unknown", strength(b, "echo"), "nothing is measured in a new home");
        assertEquals("false", js(b, "return document.getElementById('measure').dataset.running;"));

        b.driver.findElement(By.id("measure-start")).click();
        List<Long> doneWhileRunning = new ArrayList<>();
        List<String> barWhileRunning = new ArrayList<>();
        boolean sawRunning = false;
        long deadline = System.nanoTime() + MEASURE_BOUND.toNanos();
        Map<?, ?> last;
        while (true) {
          last = (Map<?, ?>) js(b, "const m = document.getElementById('measure'); const p = document.getElementById('measure-progress');"
              + " return {running: m.dataset.running, done: Number(m.dataset.done), total: Number(m.dataset.total),"
              + " bar: p.value + '/' + p.max, status: document.getElementById('measure-status').textContent};");
          if ("true".equals(last.get("running"))) {
            sawRunning = true;
            doneWhileRunning.add(((Number) last.get("done")).longValue());
            barWhileRunning.add((String) last.get("bar"));
          } else if (sawRunning) {
            break;
          }
          if (System.nanoTime() > deadline) {
            fail("the measure did not finish within " + MEASURE_BOUND + ": " + last);
          }
          Thread.sleep(100);
        }
        long total = ((Number) last.get("total")).longValue();
        assertEquals(names.size() - 1, total, "every stdio server is measured (remote-http is not stdio): " + last);
        assertTrue(doneWhileRunning.stream().anyMatch(d -> d > 0),
            "the page showed the progress move before the end: done " + doneWhileRunning + ", bar " + barWhileRunning);
        assertTrue(barWhileRunning.stream().distinct().count() >= 2, "the <progress> element changed: " + barWhileRunning);
        assertTrue(((String) last.get("status")).startsWith("Done: " + total + " of " + total), last.toString());

        await(b, WAIT, "the rows are refreshed with the measured verdicts", () -> "measured".equals(strength(b, "echo")));
        assertEquals(names, rowNames(b));
        assertEquals("declared", strength(b, "caller-identity"), "the sample that declares its caller identity");
        assertEquals("disqualified", strength(b, "remote-http"), "an HTTP server is out of scope");
        assertEquals("unknown", strength(b, "needs-credential"), "a server that cannot start without a credential");
        String echoRow = (String) js(b, "return document.querySelector('#servers-body tr[data-server=\"echo\"]').innerText;");
        assertTrue(echoRow.contains("measured") && echoRow.contains("preflight_passed")
            && echoRow.contains("both handshakes matched") && echoRow.contains("docs/preflight.md"), echoRow);
        String needsRow = (String) js(b, "return document.querySelector('#servers-body tr[data-server=\"needs-credential\"]').innerText;");
        assertTrue(needsRow.contains("preflight_not_run") && needsRow.contains("could not ask"), needsRow);

        // Each row says the next step.
        assertEquals("probe-to-share", next(b, "echo"));
        assertTrue(nextText(b, "echo").startsWith("probe to share"), nextText(b, "echo"));
        assertTrue((Boolean) js(b, "return !!document.querySelector('#servers-body button.share-server[data-server=\"echo\"]');"),
            "a measured server has a Share button");
        assertEquals("shares", next(b, "caller-identity"));
        assertEquals("cannot-share", next(b, "remote-http"));
        assertTrue(nextText(b, "remote-http").contains("not_stdio"), nextText(b, "remote-http"));
        assertEquals("cannot-start", next(b, "needs-credential"));
        String origin = (String) js(b, "return document.querySelector('#servers-body tr[data-server=\"echo\"] .origin').textContent;");
        assertEquals("a configuration file of the daemon", origin);
        saysNoStub(b, "after a measure");

        @SuppressWarnings("unchecked")
        List<String> loaded = (List<String>) js(b, "return performance.getEntriesByType('resource').map(e => e.name);");
        for (String resource : loaded) {
          assertTrue(resource.startsWith(base(f)), "the page requested only its own daemon: " + loaded);
        }

        screenshot(b, "measure");
        if (Boolean.getBoolean("cotenant.docs.screenshot")) {
          Files.copy(SCREENSHOTS.resolve("measure.png"), DOCS_SCREENSHOT, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  @Test
  void routingSelectedServersByKeyboardWritesTheirOverridesToTheDaemonsConfigFile(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    byte[] repositoryConfig = Files.readAllBytes(DaemonFixture.CONFIG);
    try (DaemonFixture f = new DaemonFixture(config)) {
      DaemonFixture.Run measure = f.run("measure", config.toString(), "--server", "echo");
      assertEquals(0, measure.code(), measure.err());
      f.serve();
      try (Browser b = new Browser(SCREENSHOTS)) {
        open(b, f);
        await(b, WAIT, "echo is measured and may be routed", () -> "yes".equals(js(b,
            "const r = document.querySelector('#servers-body tr[data-server=\"echo\"]');"
                + " return r ? r.querySelector('.recommend-route').textContent : null;")));
        assertEquals("unknown", strength(b, "needs-credential"));

        // Everything by keyboard: select two servers, open the confirmation, confirm.
        js(b, "document.activeElement && document.activeElement.blur(); window.focus();");
        tabTo(b, "select-echo", Keys.TAB);
        press(b, Keys.SPACE);
        tabTo(b, "select-needs-credential", Keys.TAB);
        press(b, Keys.SPACE);
        assertEquals("2 servers selected", js(b, "return document.getElementById('selection-count').textContent;"));
        tabTo(b, "route-selected", Keys.chord(Keys.SHIFT, Keys.TAB));
        press(b, Keys.ENTER);
        await(b, WAIT, "the confirmation is open", () -> (Boolean) js(b, "return document.getElementById('confirm').open;"));
        assertEquals("confirm-cancel", js(b, "return document.activeElement.id;"), "the safe choice has the focus");
        String question = (String) js(b, "return document.getElementById('confirm').innerText;");
        assertTrue(question.contains("echo") && question.contains("needs-credential"), question);
        assertTrue(question.startsWith("Route these servers through Cotenant?"), question);
        saysNoStub(b, "the confirmation");
        screenshot(b, "route-confirm");
        press(b, Keys.TAB);
        assertEquals("confirm-ok", js(b, "return document.activeElement.id;"));
        press(b, Keys.ENTER);

        await(b, WAIT, "the result names echo as routed", () -> (Boolean) js(b,
            "return !!document.querySelector('#routed-list li[data-server=\"echo\"]');"));
        String skipped = (String) js(b,
            "const s = document.querySelector('#skipped-list li[data-server=\"needs-credential\"]'); return s ? s.innerText : '';");
        assertTrue(skipped.contains("does not recommend") && skipped.contains("unknown"), skipped);
        assertFalse((Boolean) js(b, "return document.getElementById('confirm').open;"));

        JsonNode written = DaemonFixture.JSON.readTree(config.toFile());
        JsonNode overrides = written.path("cotenant").path("stubOverrides");
        assertTrue(overrides.path("echo").asBoolean(false), "echo is stubbed in " + config + ": " + written);
        assertTrue(overrides.path("needs-credential").isMissingNode(), "needs-credential is not: " + overrides);
        assertArrayEquals(repositoryConfig, Files.readAllBytes(DaemonFixture.CONFIG), "examples/mcp.json is untouched");
        saysNoStub(b, "the result");
        screenshot(b, "route");
      }
    }
  }

  @Test
  void theBackendsPanelShowsOneSharedBackendServingTwoSessions(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    try (DaemonFixture f = new DaemonFixture(config)) {
      f.serve("--set", "cotenant.sharing.forced=echo");
      McpSyncClient first = f.stdioClient("echo", "dashboard-1");
      McpSyncClient second = f.stdioClient("echo", "dashboard-2");
      for (McpSyncClient c : List.of(first, second)) {
        String answer = DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "hello"))));
        assertTrue(answer.contains("hello"), answer);
      }
      try (Browser b = new Browser(SCREENSHOTS)) {
        open(b, f);
        await(b, WAIT, "the echo backend is shown shared, with two sessions", () -> (Boolean) js(b,
            "const r = document.querySelector('#backends-body tr[data-server=\"echo\"]');"
                + " return !!r && r.dataset.placement === 'shared' && r.dataset.sessions === '2';"));
        String row = (String) js(b, "return document.querySelector('#backends-body tr[data-server=\"echo\"]').innerText;");
        assertTrue(row.contains("forced"), row);
        assertTrue(row.contains("forced by cotenant.sharing.forced (verdict "), "the row says why: " + row);
        assertEquals(1L, js(b, "return document.querySelectorAll('#backends-body tr').length;"));
        // Everything routing takes: every process of the backend's tree (its bubblewrap pair too, where
        // there is one), the two shims, the daemon and its watchdog, against a copy of the server per
        // session run directly; here that costs more than it saves, and the page says so.
        JsonNode answer = api(f, "backends");
        long tree = answer.path("cost").path("now").path("backends").path("processes").asLong();
        await(b, WAIT, "the totals count the shims", () -> (processes(tree) + " of 1 backend + 2 shims + 2 daemon processes").equals(js(b,
            "return document.getElementById('parts-processes').textContent.replace(/[()]/g, '');")));
        assertEquals((tree + 4) + " now vs 2 directly", js(b, "return document.getElementById('total-processes').textContent;"));
        // Memory in Pss: the figures the page shows are the API's pssBytes.
        assertTrue(((String) js(b, "return document.getElementById('total-memory').closest('div').querySelector('dt').textContent;"))
            .startsWith("Memory (Pss)"));
        Map<?, ?> memory = (Map<?, ?>) js(b, "const t = document.getElementById('backend-totals'); const v = window.CotenantViews;"
            + " return {text: document.getElementById('total-memory').textContent, now: Number(t.dataset.nowPss),"
            + " direct: Number(t.dataset.directPss), shown: v.bytes(Number(t.dataset.nowPss)) + ' now vs '"
            + " + v.bytes(Number(t.dataset.directPss)) + ' directly', known: t.dataset.memoryKnown};");
        assertEquals(memory.get("shown"), memory.get("text"), "the page shows its Pss figures: " + memory);
        assertTrue(((String) memory.get("text")).matches("\\d+(\\.\\d+)? (KiB|MiB|GiB) now vs \\d+(\\.\\d+)? (KiB|MiB|GiB) directly"),
            memory.toString());
        assertEquals("true", memory.get("known"), "every part's memory was read (each shim names its pid)");
        JsonNode cost = api(f, "backends").path("cost");
        double pageNow = ((Number) memory.get("now")).doubleValue();
        double apiNow = cost.path("now").path("pssBytes").asDouble();
        assertTrue(Math.abs(pageNow - apiNow) <= 0.05 * apiNow, "the page's Pss " + pageNow + " is the API's " + apiNow);
        assertTrue(cost.path("now").path("pssBytes").asLong() < cost.path("now").path("rssBytes").asLong(),
            "Pss counts the shared pages once, so less than Rss: " + cost);
        String memoryParts = (String) js(b, "return document.getElementById('parts-memory').textContent;");
        assertTrue(memoryParts.matches("\\(backends [^+]+ \\+ shims [^+]+ \\+ daemon [^+]+\\)"), memoryParts);
        // How directly is estimated: echo's two sessions each a copy of its own memory, the shared pages once.
        Map<?, ?> echoDirect = (Map<?, ?>) js(b, "const e = document.querySelector('#direct-servers li[data-server=\"echo\"]');"
            + " return e ? {text: e.textContent, figures: e.dataset.figures} : null;");
        assertEquals("now", echoDirect.get("figures"), echoDirect.toString());
        assertTrue(((String) echoDirect.get("text")).matches("echo: 2 sessions × [^=]+ of its own \\(1 process each\\) \\+ [^=]+"
            + " shared once = [^;]+ directly; read of its backend now\\."), echoDirect.toString());
        // The backend's row: its memory in Pss, since when it is up in local time, UTC in the title.
        Map<?, ?> started = (Map<?, ?>) js(b, "const r = document.querySelector('#backends-body tr[data-server=\"echo\"]');"
            + " const t = r.querySelector('td.started time'); const m = r.querySelector('td.memory');"
            + " return {memory: m.textContent, memoryTitle: m.title, text: t.textContent, title: t.title, datetime: t.getAttribute('datetime'),"
            + " local: (() => { const d = new Date(t.getAttribute('datetime')); const p = n => String(n).padStart(2, '0');"
            + " return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':'"
            + " + p(d.getMinutes()) + ':' + p(d.getSeconds()); })()};");
        assertTrue(((String) started.get("memoryTitle")).startsWith("Pss of its " + processes(tree) + "; Uss "), started.toString());
        assertTrue(((String) started.get("text")).matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\(UTC[+-]\\d{2}:\\d{2}\\)"),
            started.toString());
        assertTrue(((String) started.get("text")).startsWith((String) started.get("local")), "local time: " + started);
        assertTrue(((String) started.get("title")).startsWith("UTC: " + started.get("datetime") + "; up "), started.toString());
        long startedAt = answer.path("backends").get(0).path("startedAt").asLong();
        assertEquals(java.time.Instant.ofEpochMilli(startedAt).toString().replaceAll("Z$", ""),
            ((String) started.get("datetime")).replaceAll("(\\.000)?Z$", ""), "the time the API says it came up: " + started);
        String verdict = (String) js(b, "return document.getElementById('total-verdict').textContent;");
        assertTrue(verdict.startsWith("Routing through Cotenant costs " + (tree + 2)
            + " processes more than running each client's servers directly"), verdict);
        assertEquals("2", js(b, "return document.getElementById('total-sessions').textContent;"));
        screenshot(b, "backends");
      }
    }
  }

  @Test
  void aHazardOfAServerIsShownAndClearedFromThePageAfterAConfirmation(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    try (DaemonFixture f = new DaemonFixture(config)) {
      f.serve();
      HttpResponse<String> recorded = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(base(f) + "api/hazards")).timeout(WAIT)
              .header("Authorization", "Bearer " + f.token()).header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(
                  "{\"server\":\"echo\",\"code\":\"cross_session_leak\",\"attachedSessions\":2}"))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(201, recorded.statusCode(), recorded.body());
      try (Browser b = new Browser(SCREENSHOTS)) {
        open(b, f);
        await(b, WAIT, "the hazard of echo is listed", () -> (Boolean) js(b,
            "const h = document.querySelector('#hazards-list li[data-server=\"echo\"]');"
                + " return !!h && h.innerText.includes('cross_session_leak');"));
        await(b, WAIT, "echo is refuted", () -> "refuted".equals(strength(b, "echo")));
        assertEquals("refuted", next(b, "echo"));
        assertTrue(nextText(b, "echo").startsWith("refuted (cross_session_leak): see hazard"), nextText(b, "echo"));
        // The time it was last seen: local, ISO-like, its exact value in the title.
        double lastSeen = DaemonFixture.JSON.readTree(HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create(base(f) + "api/hazards")).timeout(WAIT).header("Authorization", "Bearer " + f.token())
                .build(), HttpResponse.BodyHandlers.ofString()).body())
            .path("servers").get(0).path("identities").get(0).path("lastSeen").asDouble();
        Map<?, ?> time = (Map<?, ?>) js(b, "const t = document.querySelector('#hazards-list li[data-server=\"echo\"] time');"
            + " return {text: t.textContent, title: t.title, datetime: t.getAttribute('datetime'), seconds: t.dataset.seconds,"
            + " local: (() => { const d = new Date(Number(t.dataset.seconds) * 1000); const p = n => String(n).padStart(2, '0');"
            + " return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':'"
            + " + p(d.getMinutes()) + ':' + p(d.getSeconds()); })()};");
        assertTrue(((String) time.get("text")).matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\(UTC[+-]\\d{2}:\\d{2}\\)"),
            time.toString());
        assertTrue(((String) time.get("text")).startsWith((String) time.get("local")), "local time: " + time);
        assertEquals(lastSeen, Double.parseDouble((String) time.get("seconds")), 1e-6, time.toString());
        assertTrue(((String) time.get("title")).startsWith(time.get("seconds") + " s since the epoch ("), time.toString());
        assertEquals(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC)
            .format(java.time.Instant.ofEpochMilli((long) Math.floor(lastSeen * 1000))), time.get("datetime"), time.toString());
        assertFalse((Boolean) js(b, "return document.getElementById('hazards-list').innerText.includes("
            + "document.querySelector('#hazards-list time').dataset.seconds);"), "no raw epoch seconds in the text");
        screenshot(b, "hazards");

        b.driver.findElement(By.cssSelector("#hazards-list button.clear-hazards[data-server='echo']")).click();
        await(b, WAIT, "the confirmation is open", () -> (Boolean) js(b, "return document.getElementById('confirm').open;"));
        press(b, Keys.ESCAPE);
        await(b, WAIT, "Escape closes the confirmation", () -> !(Boolean) js(b, "return document.getElementById('confirm').open;"));
        assertTrue((Boolean) js(b, "return !!document.querySelector('#hazards-list li[data-server=\"echo\"]');"),
            "nothing is cleared without a confirmation");

        b.driver.findElement(By.cssSelector("#hazards-list button.clear-hazards[data-server='echo']")).click();
        await(b, WAIT, "the confirmation is open again", () -> (Boolean) js(b, "return document.getElementById('confirm').open;"));
        b.driver.findElement(By.id("confirm-ok")).click();
        await(b, WAIT, "the hazard is gone from the page", () -> (Boolean) js(b,
            "return document.querySelectorAll('#hazards-list li').length === 0"
                + " && document.getElementById('hazards-status').textContent.startsWith('Cleared the hazards of echo.');"));
        await(b, WAIT, "echo is no longer refuted", () -> !"refuted".equals(strength(b, "echo")));
      }
      DaemonFixture.Run list = f.run("hazards", "list", "--json");
      assertEquals(0, list.code(), list.err());
      assertEquals(0, DaemonFixture.JSON.readTree(list.out()).path("servers").size(), list.out());
    }
  }

  /**
   * A daemon a shim started has no configuration file of its own: the page shows the servers of the
   * file the shim named (and says so), Measure covers them, and Share on a row takes one to shared,
   * showing each step, while the backends panel counts the shim and the daemon in what sharing costs.
   */
  @Test
  void aDaemonStartedByAShimShowsMeasuresAndSharesTheServersOfTheFileItsShimNamed(@TempDir Path dir) throws Exception {
    Path config = DaemonFixture.configCopy(dir);
    Set<String> names = configured(config);
    try (DaemonFixture f = new DaemonFixture(config)) {
      // No daemon runs: the client's shim (cotenant connect echo CONFIG) starts one.
      McpSyncClient client = f.stdioClient("echo", "shim-started");
      try {
        assertTrue(DaemonFixture.text(client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "hi")))).contains("hi"));
        assertEquals(0, f.state().orElseThrow().path("configs").size(), "the daemon has no configuration file of its own");
        try (Browser b = new Browser(SCREENSHOTS)) {
          open(b, f);
          await(b, WAIT, "every server of the file the shim named has a row", () -> rowNames(b).equals(names));
          String origin = (String) js(b, "return document.querySelector('#servers-body tr[data-server=\"echo\"] .origin').textContent;");
          assertEquals("named by a client's shim", origin);
          assertTrue((Boolean) js(b, "return document.getElementById('route-selected').disabled"
              + " && !document.getElementById('route-unavailable').hidden;"), "nothing of the daemon's own to write to, and said so");
          await(b, WAIT, "echo's row says its session runs on a dedicated backend", () -> nextText(b, "echo")
              .contains("running: dedicated: its verdict (unknown) does not recommend sharing"));
          long tree = api(f, "backends").path("backends").get(0).path("processes").asLong();
          await(b, WAIT, "the totals count the shim and the daemon", () -> ((tree + 3) + " now vs 1 directly").equals(js(b,
              "return document.getElementById('total-processes').textContent;")));
          assertEquals("(" + processes(tree) + " of 1 backend + 1 shim + 2 daemon processes)",
              js(b, "return document.getElementById('parts-processes').textContent;"));

          // Measure covers the servers the shim's file names: not "0 of 0".
          b.driver.findElement(By.id("measure-start")).click();
          await(b, WAIT, "the measure counts every stdio server of the file", () -> (Boolean) js(b,
              "const m = document.getElementById('measure'); return Number(m.dataset.total) === arguments[0];", names.size() - 1));
          if ("true".equals(js(b, "return document.getElementById('measure').dataset.running;"))) {
            b.driver.findElement(By.id("measure-cancel")).click();
          }
          await(b, MEASURE_BOUND, "the measure ends", () -> "false".equals(js(b, "return document.getElementById('measure').dataset.running;")));

          // Share on echo's row: what `cotenant share echo` does, each step shown.
          await(b, WAIT, "echo has a Share button", () -> (Boolean) js(b,
              "const s = document.querySelector('#servers-body button.share-server[data-server=\"echo\"]'); return !!s && !s.disabled;"));
          b.driver.findElement(By.cssSelector("#servers-body button.share-server[data-server='echo']")).click();
          await(b, WAIT, "the confirmation is open", () -> (Boolean) js(b, "return document.getElementById('confirm').open;"));
          String question = (String) js(b, "return document.getElementById('confirm').innerText;");
          assertTrue(question.startsWith("Share echo?") && question.contains("cotenant share echo"), question);
          assertEquals("confirm-cancel", js(b, "return document.activeElement.id;"), "the safe choice has the focus");
          b.driver.findElement(By.id("confirm-ok")).click();
          await(b, WAIT, "the share runs and shows its first step", () -> (Boolean) js(b,
              "return !!document.querySelector('#share-steps li[data-step=\"assess\"]');"));
          await(b, MEASURE_BOUND, "the share ends", () -> "false".equals(js(b,
              "return document.getElementById('share-result').dataset.running;")));
          screenshot(b, "share");
          Map<?, ?> outcome = (Map<?, ?>) js(b, "const o = document.getElementById('share-outcome');"
              + " return {shared: o ? o.dataset.shared : null, text: document.getElementById('share-result').innerText,"
              + " steps: Array.from(document.querySelectorAll('#share-steps > li')).map(l => l.dataset.step + '=' + l.dataset.result)};");
          assertEquals("true", outcome.get("shared"), outcome.toString());
          assertTrue(((String) outcome.get("text")).contains("echo now shares one backend across sessions"), outcome.toString());
          assertEquals("verdict=declared", ((List<?>) outcome.get("steps")).get(((List<?>) outcome.get("steps")).size() - 1),
              outcome.toString());
          assertTrue(((List<?>) outcome.get("steps")).contains("probe=passed"), outcome.toString());
          await(b, WAIT, "the row is refreshed: echo shares", () -> "shares".equals(next(b, "echo")));
          assertEquals("declared", strength(b, "echo"));
          assertFalse((Boolean) js(b, "return !!document.querySelector('#servers-body button.share-server[data-server=\"echo\"]');"),
              "nothing left to share");
          saysNoStub(b, "after a share");
        }
      } finally {
        DaemonFixture.Run stop = f.run("stop");
        assertEquals(0, stop.code(), stop.err());
      }
    }
  }

  @Test
  void withoutATokenThePageSaysHowToGetOneAndATokenLeavesTheAddressBar() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      try (Browser b = new Browser(SCREENSHOTS)) {
        b.driver.get(base(f));
        await(b, WAIT, "the page says a token is missing", () -> (Boolean) js(b,
            "return !document.getElementById('auth-problem').hidden;"));
        String problem = (String) js(b, "return document.getElementById('auth-problem').innerText;");
        assertTrue(problem.contains("No token") && problem.contains("cotenant dashboard"), problem);
        screenshot(b, "no-token");

        String token = f.token();
        b.driver.get("about:blank");
        b.driver.get(base(f) + "#token=" + token);
        await(b, WAIT, "the token is taken from the address", () -> token.equals(js(b,
            "return sessionStorage.getItem('cotenant.token');")));
        assertFalse(b.driver.getCurrentUrl().contains("token"), b.driver.getCurrentUrl());
        assertTrue((Boolean) js(b, "return document.getElementById('auth-problem').hidden;"));
      }
    }
  }

  @Test
  void aRefusedTokenIsSaidSo() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      f.serve();
      try (Browser b = new Browser(SCREENSHOTS)) {
        b.driver.get(base(f) + "#token=not-the-token");
        await(b, WAIT, "the page says the token was refused", () -> (Boolean) js(b,
            "return !document.getElementById('auth-problem').hidden;"));
        String problem = (String) js(b, "return document.getElementById('auth-problem').innerText;");
        assertTrue(problem.contains("Token refused") && problem.contains("cotenant dashboard"), problem);
        screenshot(b, "refused");
      }
    }
  }
}
