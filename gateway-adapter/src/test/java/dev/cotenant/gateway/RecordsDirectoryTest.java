package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RecordsDirectoryTest {
  @Test
  void aConfiguredSocketPathWinsWithItsParentDirectory() {
    assertEquals(
        Path.of("/run/gw"),
        RecordsDirectory.resolve(Optional.of("/run/gw/gateway.sock"), Map.of("COTENANT_HOME", "/c"), "/home/u"));
  }

  @Test
  void emptyAndDotSocketPathsCountAsUnset() {
    assertEquals(Path.of("/c/records"), RecordsDirectory.resolve(Optional.of(""), Map.of("COTENANT_HOME", "/c"), "/h"));
    assertEquals(Path.of("/c/records"), RecordsDirectory.resolve(Optional.of("."), Map.of("COTENANT_HOME", "/c"), "/h"));
  }

  @Test
  void cotenantHomeThenTheUsersHome() {
    assertEquals(Path.of("/c/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", "/c"), "/h"));
    assertEquals(Path.of("/h/.cotenant/records"), RecordsDirectory.resolve(Optional.empty(), Map.of(), "/h"));
    assertEquals(
        Path.of("/h/.cotenant/records"), RecordsDirectory.resolve(Optional.empty(), Map.of("COTENANT_HOME", " "), "/h"));
  }
}
