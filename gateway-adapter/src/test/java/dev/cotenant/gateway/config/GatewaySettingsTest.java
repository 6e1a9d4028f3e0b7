package dev.cotenant.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code "cotenant"} section of a configuration file. The sharing switch is off unless an
 * operator wrote {@code true}; this was reached only from the CLI's tests before (a mutation run
 * found {@code sharing} returning true for an absent switch unchecked in this module).
 */
class GatewaySettingsTest {
  private static final Path FILE = Path.of("/etc/mcp.json");
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static ObjectNode json(String text) {
    return (ObjectNode) MAPPER.readTree(text);
  }

  @Test
  void sharingIsOffUnlessTheSwitchSaysTrue() throws ConfigException {
    // Kills sharing returning true on either path that finds no switch (BooleanTrueReturnValsMutator).
    assertFalse(GatewaySettings.sharing(FILE, json("{}")));
    assertFalse(GatewaySettings.sharing(FILE, json("{\"cotenant\":null}")));
    assertFalse(GatewaySettings.sharing(FILE, json("{\"cotenant\":{}}")));
    assertFalse(GatewaySettings.sharing(FILE, json("{\"cotenant\":{\"sharing\":null}}")));
    assertFalse(GatewaySettings.sharing(FILE, json("{\"cotenant\":{\"sharing\":false}}")));
    assertTrue(GatewaySettings.sharing(FILE, json("{\"cotenant\":{\"sharing\":true}}")));
  }

  @Test
  void aSwitchOrSectionOfAnotherKindIsRefusedNamingIt() {
    ConfigException e = assertThrows(ConfigException.class, () -> GatewaySettings.sharing(FILE, json("{\"cotenant\":{\"sharing\":\"yes\"}}")));
    assertEquals("\"cotenant.sharing\" must be true or false, found a string", e.problem());
    e = assertThrows(ConfigException.class, () -> GatewaySettings.sharing(FILE, json("{\"cotenant\":[]}")));
    assertEquals("\"cotenant\" must be an object, found an array", e.problem());
    e = assertThrows(ConfigException.class, () -> GatewaySettings.stubOverrides(FILE, json("{\"cotenant\":{\"stubOverrides\":1}}")));
    assertEquals("\"cotenant.stubOverrides\" must be an object, found a number", e.problem());
  }

  @Test
  void stubOverridesAreCreatedWhenAbsentKeptWhenPresentAndReadAsBooleansOnly() throws ConfigException {
    // Kills stubOverrides with either absence test negated or returning null, and
    // stubOverridesView with its boolean test negated or returning an empty map.
    ObjectNode empty = json("{\"cotenant\":{\"stubOverrides\":null}}");
    ObjectNode created = GatewaySettings.stubOverrides(FILE, empty);
    created.put("echo", true);
    assertEquals(json("{\"cotenant\":{\"stubOverrides\":{\"echo\":true}}}"), empty);

    ObjectNode present = json("{\"cotenant\":{\"stubOverrides\":{\"a\":true,\"b\":false,\"c\":\"yes\"}}}");
    ObjectNode overrides = GatewaySettings.stubOverrides(FILE, present);
    assertSame(present.get("cotenant").get("stubOverrides"), overrides);
    assertEquals(Map.of("a", true, "b", false), GatewaySettings.stubOverridesView(overrides));
  }
}
