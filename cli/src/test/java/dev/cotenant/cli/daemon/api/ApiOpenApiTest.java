package dev.cotenant.cli.daemon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.daemon.api.ApiDaemon.Answer;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.server.FakeServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The OpenAPI document, the handler's route table and {@code docs/api.md} agree: every documented
 * path and method is routed (it answers something other than the route-miss {@code not_found}),
 * every route is documented, every {@code $ref} resolves, and the page names every route.
 */
@ChecksProcessLeaks(waitMillis = 20_000)
class ApiOpenApiTest {
  private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete", "head", "options");

  @TempDir Path dir;

  private static JsonNode document() throws Exception {
    try (InputStream in = ApiHandler.class.getResourceAsStream(ApiHandler.OPENAPI_RESOURCE)) {
      return ApiDaemon.JSON.readTree(in);
    }
  }

  /** {@code "METHOD /api/path"} of every operation of the document. */
  private static Set<String> documented(JsonNode doc) {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        if (METHODS.contains(op.getKey())) {
          out.add(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
        }
      }
    }
    return out;
  }

  @Test
  void everyDocumentedRouteIsServedAndEveryRouteIsDocumented() throws Exception {
    JsonNode doc = document();
    assertEquals("3.1.0", doc.path("openapi").asString());
    Set<String> documented = documented(doc);
    assertEquals(new TreeSet<>(ApiHandler.routeTable()), documented, "the document and the route table");
    try (ApiDaemon api = ApiDaemon.start(dir, Map.of("echo", FakeServer.builder().name("echo").echo().build().description()),
        Map.of(), Map.of())) {
      Answer served = api.get("/api/openapi.json");
      assertEquals(200, served.status(), served.toString());
      assertEquals(doc, served.json(), "the document is served as it is in the jar");
      Map<Path, String> before = api.written();
      for (String route : documented) {
        String method = route.substring(0, route.indexOf(' '));
        String path = route.substring(route.indexOf(' ') + 1).replace("{server}", "echo");
        // A JSON array is a body no route acts on: each answers bad_request, and nothing is written.
        Answer a = api.send(method, path, method.equals("POST") ? "[]" : null, Map.of());
        assertFalse(a.status() == 404 && a.json().path("message").asString().startsWith(ApiHandler.NO_ROUTE),
            route + " is routed: " + a);
        assertTrue(a.status() != 405, route + " is routed: " + a);
        assertEquals("application/json", a.headers().get("Content-Type"), route);
      }
      api.assertUnchanged(before, "probing the routes writes nothing");
    }
  }

  @Test
  void everyReferenceOfTheDocumentResolves() throws Exception {
    JsonNode doc = document();
    List<String> refs = new ArrayList<>();
    collectRefs(doc, refs);
    assertFalse(refs.isEmpty());
    for (String ref : refs) {
      assertTrue(ref.startsWith("#/"), ref);
      JsonNode target = doc.at(ref.substring(1));
      assertFalse(target.isMissingNode(), "the reference " + ref + " resolves");
    }
    for (JsonNode path : doc.path("paths")) {
      for (Map.Entry<String, JsonNode> op : path.properties()) {
        assertTrue(op.getValue().path("responses").size() > 0, op.getKey() + " has responses");
        assertFalse(op.getValue().path("operationId").asString().isEmpty(), op.getKey() + " has an operationId");
      }
    }
  }

  private static void collectRefs(JsonNode n, List<String> out) {
    if (n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        if (e.getKey().equals("$ref")) {
          out.add(e.getValue().asString());
        } else {
          collectRefs(e.getValue(), out);
        }
      }
    } else if (n.isArray()) {
      n.forEach(c -> collectRefs(c, out));
    }
  }

  @Test
  void docsApiMdNamesEveryRouteOfTheDocumentWithACurlExample() throws Exception {
    Path page = Path.of("").toAbsolutePath().resolveSibling("docs").resolve("api.md");
    if (!Files.exists(page)) {
      page = Path.of("docs", "api.md").toAbsolutePath();
    }
    String md = Files.readString(page, StandardCharsets.UTF_8);
    Set<String> headed = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^### `([A-Z]+ /api/[^`?]*)[^`]*`$").matcher(md);
    while (m.find()) {
      headed.add(m.group(1));
    }
    for (String route : documented(document())) {
      assertTrue(md.contains(route), "docs/api.md names " + route);
    }
    assertEquals(documented(document()), headed, "one section per route");
    String[] sections = md.split("(?m)^### ");
    for (int i = 1; i < sections.length; i++) {
      assertTrue(sections[i].contains("curl "), "the section of " + sections[i].lines().findFirst().orElse("") + " has a curl example");
      assertTrue(sections[i].contains("Authorization: Bearer $TOKEN"), "its example carries the token");
    }
  }
}
