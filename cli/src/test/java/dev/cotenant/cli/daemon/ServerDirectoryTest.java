package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.gateway.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the daemon remembers of the configuration files its shims name: only the absolute path of
 * a regular file it read, never the daemon's own files twice, never a file gone since, and at most
 * {@link ServerDirectory#REMEMBERED} of them, the oldest forgotten first.
 */
class ServerDirectoryTest {
  @TempDir Path dir;

  private Path config(String name, String server) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, "{\"mcpServers\":{\"" + server + "\":{\"command\":\"/bin/cat\"}}}");
    return f;
  }

  @Test
  void onlyRegularFilesItReadAreRememberedInTheOrderFirstNamed() throws Exception {
    Path own = config("own.json", "own");
    Path a = config("a.json", "alpha");
    Path b = config("b.json", "beta");
    ServerDirectory directory = new ServerDirectory(List.of(own));
    assertEquals(List.of(), directory.shimFiles());

    assertEquals("beta", directory.find("beta", List.of(b)).name());
    assertEquals("alpha", directory.find("alpha", List.of(a, b)).name());
    assertEquals("own", directory.find("own", List.of(own)).name());
    assertEquals(List.of(b, a), directory.shimFiles(), "in the order first named, the daemon's own left out");
    assertEquals(List.of(own), directory.files());

    // A FIFO is refused before a byte is read, and is not remembered.
    Path fifo = dir.resolve("fifo.json");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    mkfifo.waitFor(10, TimeUnit.SECONDS);
    assertEquals(0, mkfifo.exitValue());
    assertThrows(ConfigException.class, () -> directory.find("alpha", List.of(fifo)));
    assertThrows(ConfigException.class, () -> directory.find("alpha", List.of(dir.resolve("missing.json"))));
    assertThrows(ConfigException.class, () -> directory.find("alpha", List.of(dir)));
    assertEquals(List.of(b, a), directory.shimFiles());

    Files.delete(b);
    assertEquals(List.of(a), directory.shimFiles(), "a file gone is no longer listed");
  }

  @Test
  void theOldestIsForgottenBeyondTheLimit() throws Exception {
    ServerDirectory directory = new ServerDirectory(List.of());
    List<Path> named = new ArrayList<>();
    for (int i = 0; i <= ServerDirectory.REMEMBERED; i++) {
      Path f = config("c" + i + ".json", "s" + i);
      directory.find("s" + i, List.of(f));
      named.add(f);
    }
    assertEquals(named.subList(1, named.size()), directory.shimFiles());
  }
}
