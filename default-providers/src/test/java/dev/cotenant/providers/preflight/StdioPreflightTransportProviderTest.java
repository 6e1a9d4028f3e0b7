package dev.cotenant.providers.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.providers.session.StdioSessionTransportProvider;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StdioPreflightTransportProviderTest {

  /** A context like the runtime's: its session transport is the {@code stdio} one, made on first call. */
  private static ProviderContext context(Map<String, String> config) {
    ProviderConfig c = ProviderConfig.of(config);
    return new ProviderContext(c, Path.of("records"),
        () -> new StdioSessionTransportProvider().create(new ProviderContext(c, Path.of("records"))));
  }

  @Test
  void theStdioProviderIsFoundThroughTheRealServiceLoader() {
    List<PreflightTransportProvider> providers = ServiceLoader.load(PreflightTransportProvider.class).stream()
        .map(ServiceLoader.Provider::get).collect(Collectors.toList());
    PreflightTransportProvider stdio = providers.stream().filter(p -> p.name().equals("stdio")).findFirst().orElseThrow();
    assertInstanceOf(StdioPreflightTransportProvider.class, stdio);
    PreflightTransport t = stdio.create(context(Map.of()));
    assertEquals(PreflightSettings.defaults(), ((StdioPreflightTransport) t).settings());
  }

  @Test
  void thePreflightNeedsTheRuntimesSessionTransport() {
    ProviderContext without = new ProviderContext(ProviderConfig.empty(), Path.of("records"));
    assertThrows(IllegalStateException.class, () -> new StdioPreflightTransportProvider().create(without));
    List<String> asked = new ArrayList<>();
    ProviderContext with = new ProviderContext(ProviderConfig.empty(), Path.of("records"), () -> {
      asked.add("sessions");
      return (server, label, handler) -> {
        throw new AssertionError("creating the pre-flight must not open a session");
      };
    });
    new StdioPreflightTransportProvider().create(with);
    assertEquals(List.of("sessions"), asked);
  }

  @Test
  void theDefaultsAreTheDocumentedOnes() {
    PreflightSettings d = PreflightSettings.defaults();
    assertEquals(HandshakeEra.AUTO, d.era());
    assertEquals(4, d.maxProcesses());
    assertEquals(Duration.ofSeconds(15), d.timeout());
    assertEquals(Duration.ofSeconds(5), d.discoverTimeout());
    assertEquals(8 * 1024 * 1024, d.maxLineBytes());
    assertEquals(64, d.maxDepth());
    assertEquals(10_000, d.maxMessages());
    assertEquals(100, d.maxListPages());
    assertEquals(10_000, d.maxListItems());
  }

  @Test
  void everyKeyIsRead() {
    PreflightSettings s = PreflightSettings.from(ProviderConfig.of(Map.ofEntries(
        Map.entry(PreflightSettings.ERA, " Discover "),
        Map.entry(PreflightSettings.MAX_PROCESSES, "2"),
        Map.entry(PreflightSettings.TIMEOUT_MS, "1000"),
        Map.entry(PreflightSettings.DISCOVER_TIMEOUT_MS, "200"),
        Map.entry(PreflightSettings.STDIN_CLOSE_WAIT_MS, "0"),
        Map.entry(PreflightSettings.TERM_WAIT_MS, "10"),
        Map.entry(PreflightSettings.KILL_WAIT_MS, "20"),
        Map.entry(PreflightSettings.MAX_LINE_BYTES, "4096"),
        Map.entry(PreflightSettings.MAX_TOTAL_BYTES, "8192"),
        Map.entry(PreflightSettings.MAX_DEPTH, "10"),
        Map.entry(PreflightSettings.MAX_MESSAGES, "30"),
        Map.entry(PreflightSettings.MAX_NON_JSON_LINES, "0"),
        Map.entry(PreflightSettings.MAX_LIST_PAGES, "3"),
        Map.entry(PreflightSettings.MAX_LIST_ITEMS, "40"))));
    assertEquals(new PreflightSettings(HandshakeEra.DISCOVER, 2, Duration.ofMillis(1000), Duration.ofMillis(200),
        Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(20), 4096, 8192, 10, 30, 0, 3, 40), s);
  }

  @Test
  void malformedConfigurationNamesTheKey() {
    IllegalArgumentException era = assertThrows(IllegalArgumentException.class,
        () -> new StdioPreflightTransportProvider().create(context(Map.of(PreflightSettings.ERA, "2026"))));
    assertTrue(era.getMessage().contains("cotenant.preflight.era must be one of auto, initialize, discover"), era.getMessage());
    IllegalArgumentException timeout = assertThrows(IllegalArgumentException.class,
        () -> PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.TIMEOUT_MS, "soon"))));
    assertTrue(timeout.getMessage().contains("cotenant.preflight.timeout-ms must be an integer"), timeout.getMessage());
    IllegalArgumentException depth = assertThrows(IllegalArgumentException.class,
        () -> PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.MAX_DEPTH, "100000"))));
    assertTrue(depth.getMessage().contains("cotenant.preflight.max-depth must be at most 1000"), depth.getMessage());
    IllegalArgumentException ceiling = assertThrows(IllegalArgumentException.class,
        () -> PreflightSettings.from(ProviderConfig.of(Map.of(PreflightSettings.MAX_PROCESSES, "-1"))));
    assertTrue(ceiling.getMessage().contains("cotenant.preflight.max-processes must be positive"), ceiling.getMessage());
  }
}
