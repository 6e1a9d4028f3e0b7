package dev.cotenant.gateway.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ProviderConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one records directory resolution function (docs/records.md). */
class RecordsDirectoryTest {
  static final Path HOME = Path.of("/home/op");

  @Test
  void aConfiguredSocketPathWinsWithItsParentDirectory() {
    assertEquals(
        Path.of("/run/cotenant"),
        RecordsDirectory.resolve(Optional.of("/run/cotenant/gw.sock"), Map.of("COTENANT_HOME", "/srv/ct"), HOME));
  }

  @Test
  void emptyAndDotSocketPathsCountAsUnset() {
    for (String unset : new String[] {"", ".", "  ", "./"}) {
      assertEquals(
          Path.of("/srv/ct/records"),
          RecordsDirectory.resolve(Optional.of(unset), Map.of("COTENANT_HOME", "/srv/ct"), HOME),
          "'" + unset + "'");
      assertEquals(Path.of("/home/op/.cotenant/records"), RecordsDirectory.resolve(Optional.of(unset), Map.of(), HOME));
    }
  }

  @Test
  void otherwiseCotenantHomeRecords() {
    assertEquals(Path.of("/srv/ct/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", "/srv/ct"), HOME));
    assertEquals(Path.of("/home/op/ct/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", "~/ct"), HOME));
  }

  @Test
  void emptyOrDotCotenantHomeCountsAsUnset() {
    assertEquals(Path.of("/home/op/.cotenant/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", ""), HOME));
    assertEquals(Path.of("/home/op/.cotenant/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", "."), HOME));
  }

  @Test
  void theDefaultIsUnderTheUsersHome() {
    assertEquals(Path.of("/home/op/.cotenant/records"), RecordsDirectory.resolve(Optional.empty(), Map.of(), HOME));
  }

  @Test
  void aTildeSocketPathExpandsToTheHome() {
    assertEquals(Path.of("/home/op/.gw"), RecordsDirectory.resolve(Optional.of("~/.gw/sock"), Map.of(), HOME));
  }

  @Test
  void aRelativePathIsRefusedNamingIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RecordsDirectory.resolve(Optional.of("run/gw.sock"), Map.of(), HOME));
    assertTrue(e.getMessage().contains("run/gw.sock") && e.getMessage().contains(RecordsDirectory.SOCKET_PATH_KEY), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", "ct"), HOME));
    assertTrue(e.getMessage().contains("COTENANT_HOME") && e.getMessage().contains("'ct'"), e.getMessage());
  }

  @Test
  void aSocketPathWithoutParentIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RecordsDirectory.resolve(Optional.of("/"), Map.of(), HOME));
    assertTrue(e.getMessage().contains("no parent"), e.getMessage());
  }

  @Test
  void readsTheSocketPathFromConfiguration() {
    ProviderConfig config = ProviderConfig.of(Map.of(RecordsDirectory.SOCKET_PATH_KEY, "/var/run/ct/gw.sock"));
    assertEquals(Path.of("/var/run/ct"), RecordsDirectory.resolve(config, Map.of(), HOME));
    assertEquals(Path.of("/home/op/.cotenant/records"), RecordsDirectory.resolve(ProviderConfig.empty(), Map.of(), HOME));
  }

  @Test
  void thisProcessResolvesWithItsOwnEnvironmentAndHome() {
    // Kills resolveForThisProcess returning null (NullReturnValsMutator).
    ProviderConfig config = ProviderConfig.of(Map.of(RecordsDirectory.SOCKET_PATH_KEY, "/var/run/ct/gw.sock"));
    assertEquals(Path.of("/var/run/ct"), RecordsDirectory.resolveForThisProcess(config));
    assertEquals(RecordsDirectory.resolve(ProviderConfig.empty(), System.getenv(), Path.of(System.getProperty("user.home"))),
        RecordsDirectory.resolveForThisProcess(ProviderConfig.empty()));
  }
}
