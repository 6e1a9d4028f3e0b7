package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cotenant.providers.session.SessionSettings;
import dev.cotenant.spi.ProviderConfig;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lower edge of every bound of {@link PreflightSettings} and {@link SessionSettings}: a
 * positive bound takes 1 and refuses 0, a bound that may be 0 takes 0 and refuses -1, each with a
 * message naming the key.
 */
class SettingsBoundsTest {
  private static final String POSITIVE = "must be positive, got '0'";
  private static final String NON_NEGATIVE = "must be 0 or more, got '-1'";

  static Stream<Arguments> bounds() {
    Function<ProviderConfig, ?> preflight = PreflightSettings::from;
    Function<ProviderConfig, ?> session = SessionSettings::from;
    return Stream.of(
        Stream.of(PreflightSettings.MAX_PROCESSES, PreflightSettings.TIMEOUT_MS, PreflightSettings.DISCOVER_TIMEOUT_MS,
                PreflightSettings.MAX_LINE_BYTES, PreflightSettings.MAX_TOTAL_BYTES, PreflightSettings.MAX_DEPTH,
                PreflightSettings.MAX_MESSAGES, PreflightSettings.MAX_LIST_PAGES, PreflightSettings.MAX_LIST_ITEMS)
            .map(key -> Arguments.of(key, preflight, "1", "0", POSITIVE)),
        Stream.of(PreflightSettings.STDIN_CLOSE_WAIT_MS, PreflightSettings.TERM_WAIT_MS, PreflightSettings.KILL_WAIT_MS,
                PreflightSettings.MAX_NON_JSON_LINES)
            .map(key -> Arguments.of(key, preflight, "0", "-1", NON_NEGATIVE)),
        Stream.of(SessionSettings.DISCOVER_TIMEOUT_MS, SessionSettings.MAX_MESSAGE_BYTES, SessionSettings.MAX_DEPTH)
            .map(key -> Arguments.of(key, session, "1", "0", POSITIVE)),
        Stream.of(SessionSettings.STDIN_CLOSE_WAIT_MS, SessionSettings.TERM_WAIT_MS, SessionSettings.KILL_WAIT_MS,
                SessionSettings.MAX_NON_JSON_LINES)
            .map(key -> Arguments.of(key, session, "0", "-1", NON_NEGATIVE)))
        .flatMap(s -> s);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bounds")
  void aBoundTakesItsLeastValueAndRefusesOneLess(
      String key, Function<ProviderConfig, ?> from, String least, String below, String refusal) {
    from.apply(ProviderConfig.of(Map.of(key, least)));
    assertEquals("configuration key " + key + " " + refusal,
        assertThrows(IllegalArgumentException.class, () -> from.apply(ProviderConfig.of(Map.of(key, below)))).getMessage());
  }
}
