package dev.cotenant.cli.route;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.cli.route.RoutePlan.Kind;
import dev.cotenant.cli.route.RoutePlan.Outcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** {@link Router}'s plans for entries the command's own tests do not meet. */
class RouterTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Path FILE = Path.of("/home/ana/mcp.json");
  private static final Path SIDECAR = Path.of("/home/ana/.cotenant/routes/mcp-0123456789ab.json");
  private static final Launch LAUNCH = Launch.launcher("/some/cotenant");

  private static RoutePlan route(String config, String sidecar) throws Exception {
    Optional<ObjectNode> stored = sidecar == null ? Optional.empty() : Optional.of((ObjectNode) JSON.readTree(sidecar));
    return Router.route(ConfigText.of(FILE, config), LAUNCH, SIDECAR, stored, Optional.empty());
  }

  private static Map<String, String> outcomes(RoutePlan plan) {
    return plan.outcomes().stream().collect(Collectors.toMap(Outcome::name,
        o -> o.kind() + (o.reason().isEmpty() ? "" : ": " + o.reason()), (a, b) -> a + " | " + b, java.util.LinkedHashMap::new));
  }

  /**
   * Kills {@code route} with {@code !first} negated: a name in both the {@code mcpServers} and
   * {@code servers} maps is routed once, and its second entry is left, since the sidecar holds one
   * original per name.
   */
  @Test
  void aNameInBothMapsIsRoutedOnce() throws Exception {
    RoutePlan plan = route("""
        {"mcpServers": {"git": {"command": "/usr/bin/git-mcp"}},
         "servers": {"git": {"command": "/opt/other-git-mcp"}}}
        """, null);

    assertEquals(List.of(new Outcome("git", Kind.ROUTED, ""),
        new Outcome("git", Kind.NOT_ROUTED, "also defined earlier in the file; the sidecar holds one entry per name")), plan.outcomes());
    assertEquals(JSON.readTree("{\"command\": \"/usr/bin/git-mcp\"}"), plan.originals().get("git"));
  }

  /**
   * Kills {@code route} with its test for a different original negated: an entry whose name the
   * sidecar keeps with another original is left with the reason (routing it would need to replace
   * that original, which is the only copy), and one whose kept original is the same is routed.
   */
  @Test
  void anEntryWhoseNameTheSidecarKeepsWithAnotherOriginalIsLeft() throws Exception {
    RoutePlan plan = route("""
        {"mcpServers": {"git": {"command": "/usr/bin/git-mcp"}, "files": {"command": "/usr/bin/files"}}}
        """, """
        {"routedFrom": "/home/ana/mcp.json", "mcpServers": {"git": {"command": "/usr/bin/old-git-mcp"}, "files": {"command": "/usr/bin/files"}}}
        """);

    assertEquals(Map.of(
        "git", "NOT_ROUTED: the sidecar already holds a different original for this name; remove it from the sidecar to route this entry",
        "files", "ROUTED"), outcomes(plan));
    assertEquals(List.of("files"), List.copyOf(plan.originals().keySet()));
  }

  /**
   * Kills {@code notRoutable} with each condition of the relative-{@code cwd} test negated, and
   * with the reason's choice between command and cwd negated: a relative {@code cwd} is named as
   * such; an absolute, blank or non-text one does not stop routing.
   */
  @Test
  void aRelativeWorkingDirectoryIsNamedAndOthersAreRouted() throws Exception {
    RoutePlan plan = route("""
        {"mcpServers": {
          "rel": {"command": "/usr/bin/server", "cwd": "notes"},
          "abs": {"command": "/usr/bin/server", "cwd": "/home/ana"},
          "blank": {"command": "/usr/bin/server", "cwd": " "},
          "odd": {"command": "/usr/bin/server", "cwd": 7},
          "relcmd": {"command": "bin/server", "cwd": "notes"}
        }}
        """, null);

    assertEquals(Map.of(
        "rel", "NOT_ROUTED: its cwd is a relative path, which would resolve against the sidecar's directory; make it absolute",
        "abs", "ROUTED", "blank", "ROUTED", "odd", "ROUTED",
        "relcmd", "NOT_ROUTED: its command is a relative path, which would resolve against the sidecar's directory; make it absolute"),
        outcomes(plan));
  }

  /**
   * Kills {@code connectAt}'s bound made {@code <=} and {@code routesThrough}'s bound made
   * {@code <=} or its {@code + 2} a subtraction (each read past the end of the arguments): a
   * server whose last argument is {@code connect} is routed like any other, and undoing leaves an
   * entry that says {@code connect NAME} with no sidecar after it.
   */
  @Test
  void argumentsEndingInConnectOrItsNameAreReadWithinTheirBounds() throws Exception {
    RoutePlan routed = route("""
        {"mcpServers": {"vpn": {"command": "/usr/bin/vpn-mcp", "args": ["--then", "connect"]}}}
        """, null);
    assertEquals(Map.of("vpn", "ROUTED"), outcomes(routed));

    RoutePlan undone = Router.undo(ConfigText.of(FILE, """
        {"mcpServers": {"files": {"command": "/some/cotenant", "args": ["connect", "files"]}}}
        """), SIDECAR, Optional.of((ObjectNode) JSON.readTree("""
        {"routedFrom": "/home/ana/mcp.json", "mcpServers": {"files": {"command": "/usr/bin/files"}}}
        """)));
    assertEquals(Map.of("files", "LEFT: changed since it was routed; its original stays in the sidecar"), outcomes(undone));
  }

  /**
   * The reasons no other test meets (they were uncovered by the mutation run): an entry that is
   * not an object, a name holding a control character or starting with {@code -}, an {@code
   * envFile}, and a command that is no valid path.
   */
  @Test
  void eachOtherReasonAnEntryIsLeft() throws Exception {
    RoutePlan plan = route("""
        {"mcpServers": {
          "text": "npx server",
          "bell\\u0007": {"command": "/usr/bin/server"},
          "-v": {"command": "/usr/bin/server"},
          "dotenv": {"command": "/usr/bin/server", "envFile": "/home/ana/.env"},
          "nul": {"command": "bin/ser\\u0000ver"}
        }}
        """, null);

    assertEquals(Map.of(
        "text", "NOT_ROUTED: not an object",
        "bell\u0007", "NOT_ROUTED: its name holds a control character; rename it",
        "-v", "NOT_ROUTED: its name starts with \"-\", which connect would read as an option; rename it",
        "dotenv", "NOT_ROUTED: it has an \"envFile\", which the client reads and the daemon would not",
        "nul", "NOT_ROUTED: its command is a relative path, which would resolve against the sidecar's directory; make it absolute"),
        outcomes(plan));
  }

  /**
   * Kills {@code ConfigText.render} with its search for the file's indentation negated: a routed
   * entry is indented with the file's own unit (a tab here), not with two spaces.
   */
  @Test
  void aRoutedEntryIsIndentedLikeTheFile() throws Exception {
    RoutePlan plan = route("{\n\t\"mcpServers\": {\n\t\t\"git\": {\n\t\t\t\"command\": \"/usr/bin/git-mcp\"\n\t\t}\n\t}\n}\n", null);

    assertEquals("{\n\t\"mcpServers\": {\n\t\t\"git\": {\n\t\t\t\"command\": \"/some/cotenant\",\n\t\t\t\"args\": [\n"
        + "\t\t\t\t\"connect\",\n\t\t\t\t\"git\",\n\t\t\t\t\"" + SIDECAR + "\"\n\t\t\t]\n\t\t}\n\t}\n}\n", plan.text());
  }

  /**
   * An entry routed to the native shim is recognised as routed (routing again leaves it) and
   * undone like a JVM entry: the original comes back as the file held it.
   */
  @Test
  void anEntryRoutedToTheNativeShimIsAlreadyRoutedAndUndoneToTheOriginalText() throws Exception {
    String config = """
        {
          "mcpServers": {
            "files": {"command": "/usr/bin/files-mcp", "args": ["/home/ana/notes"], "env": {"TOKEN": "s3cret"}},
            "web": {"url": "https://mcp.example.com/mcp"}
          }
        }
        """;
    Launch shim = Launch.nativeShim(Path.of("/home/ana/.cotenant/lib/cotenant-shim-0123456789abcdef"), "/usr/bin/java",
        Path.of("/home/ana/.cotenant/lib/cotenant-fedcba9876543210.jar"));
    RoutePlan routed = Router.route(ConfigText.of(FILE, config), shim, SIDECAR, Optional.empty(), Optional.empty());
    assertEquals(Map.of("files", "ROUTED", "web", "NOT_ROUTED: remote (url): the client reaches it directly"),
        outcomes(routed));
    tools.jackson.databind.JsonNode entry = JSON.readTree(routed.text()).path("mcpServers").path("files");
    assertEquals("/home/ana/.cotenant/lib/cotenant-shim-0123456789abcdef", entry.path("command").stringValue());

    // The sidecar as Sidecar.add writes it.
    ObjectNode sidecar = JSON.createObjectNode();
    sidecar.put("routedFrom", FILE.toString());
    ObjectNode servers = sidecar.putObject("mcpServers");
    ObjectNode as = sidecar.putObject("routedAs");
    ObjectNode texts = sidecar.putObject("originalTexts");
    routed.originals().forEach(servers::set);
    routed.routedAs().forEach(as::set);
    routed.originalTexts().forEach(texts::put);

    RoutePlan again = Router.route(ConfigText.of(FILE, routed.text()), shim, SIDECAR, Optional.of(sidecar), Optional.empty());
    assertEquals("ALREADY_ROUTED", outcomes(again).get("files"));
    RoutePlan undone = Router.undo(ConfigText.of(FILE, routed.text()), SIDECAR, Optional.of(sidecar));
    assertEquals(Map.of("files", "RESTORED"), outcomes(undone));
    assertEquals(config, undone.text());
  }
}
