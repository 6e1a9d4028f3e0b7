package dev.cotenant.cli.route;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link Sidecar} on its own: each of {@code read}, {@code add} and {@code remove} checks whose
 * originals the file keeps, the file is made private whenever originals are added, and {@code
 * remove} takes out exactly the originals put back. {@code route} reads the sidecar before it adds
 * or removes, so through the command only {@code read}'s check is ever reached; the other two guard
 * a sidecar another process rewrote in between, which only a direct call can show.
 */
class SidecarTest {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private JsonNode json(String text) {
    return JSON.readTree(text);
  }

  private Path config() {
    return tmp.resolve("mcp.json");
  }

  private Sidecar sidecarWith(String content) throws IOException {
    Path file = tmp.resolve("routes/mcp-0123456789ab.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    return new Sidecar(file, config());
  }

  private RoutePlan adding(String name, String original) {
    return new RoutePlan("{}", List.of(), Map.of(name, json(original)),
        Map.of(name, json("{\"command\": \"/some/cotenant\", \"args\": [\"connect\", \"" + name + "\"]}")));
  }

  private static void refused(Executable call, Path file, byte[] before) throws IOException {
    ConfigException e = assertThrows(ConfigException.class, call);
    assertTrue(e.problem().startsWith("keeps the originals of \"/elsewhere/mcp.json\", not of "), e.problem());
    assertArrayEquals(before, Files.readAllBytes(file), "the other file's originals are left as they were");
  }

  /**
   * Kills {@code read}, {@code add} and {@code remove} each without its {@code check}: a sidecar
   * keeping another configuration's originals is never read as this one's (a plan would restore
   * that file's servers into this one), added to or emptied.
   */
  @Test
  void aSidecarKeepingAnotherFilesOriginalsIsRefusedByEveryAccessAndLeftAsItIs() throws IOException {
    Sidecar s = sidecarWith("{\"routedFrom\": \"/elsewhere/mcp.json\", \"mcpServers\": {\"git\": {\"command\": \"uvx\"}}}");
    byte[] before = Files.readAllBytes(s.file());

    refused(s::read, s.file(), before);
    refused(() -> s.add(adding("files", "{\"command\": \"/usr/bin/files\"}")), s.file(), before);
    refused(() -> s.remove(Map.of("git", json("{\"command\": \"uvx\"}"))), s.file(), before);
  }

  /**
   * Kills {@code add} without its {@code restrict}, and {@code restrict}'s test for a POSIX file
   * system negated: a sidecar that exists with wider permissions (restored from a backup, or
   * made by hand) is mode 0600 again once an original, whose {@code env} may hold a secret, is
   * added to it.
   */
  @Test
  void addingToASidecarWithWiderPermissionsMakesItPrivate() throws Exception {
    Sidecar s = sidecarWith("{}");
    Files.setPosixFilePermissions(s.file(), PosixFilePermissions.fromString("rw-r--r--"));

    s.add(adding("files", "{\"command\": \"/usr/bin/files\", \"env\": {\"TOKEN\": \"s3cret\"}}"));

    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(s.file())));
    assertEquals("s3cret", json(Files.readString(s.file())).path("mcpServers").path("files").path("env").path("TOKEN").stringValue());
  }

  /**
   * Kills {@code remove} returning true while originals are left, and the test that an original
   * is still the one put back negated: only the originals given, and only while each is unchanged,
   * leave the sidecar, with their {@code routedAs}; the file stays while any original is left.
   */
  @Test
  void removeTakesOutOnlyTheOriginalsPutBackAndSaysWhetherItDeletedTheFile() throws Exception {
    Sidecar s = sidecarWith("""
        {"routedFrom": "%s",
         "mcpServers": {"git": {"command": "uvx"}, "files": {"command": "/usr/bin/files"}, "web": {"command": "/usr/bin/web"}},
         "routedAs": {"git": {"command": "/c"}, "files": {"command": "/c"}, "web": {"command": "/c"}}}
        """.formatted(config()));

    boolean deleted = s.remove(Map.of("git", json("{\"command\": \"uvx\"}"), "web", json("{\"command\": \"/usr/bin/other\"}")));

    assertFalse(deleted, "an original is left, so the sidecar is kept");
    JsonNode kept = json(Files.readString(s.file()));
    assertEquals(List.of("files", "web"), List.copyOf(kept.path("mcpServers").propertyNames()));
    assertEquals(List.of("files", "web"), List.copyOf(kept.path("routedAs").propertyNames()));

    assertTrue(s.remove(Map.of("files", json("{\"command\": \"/usr/bin/files\"}"), "web", json("{\"command\": \"/usr/bin/web\"}"))));
    assertFalse(Files.exists(s.file()), "no original left");
    assertFalse(s.remove(Map.of("files", json("{\"command\": \"/usr/bin/files\"}"))), "nothing to delete any more");
  }
}
