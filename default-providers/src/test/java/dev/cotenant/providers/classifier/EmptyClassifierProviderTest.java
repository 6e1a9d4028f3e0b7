package dev.cotenant.providers.classifier;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EmptyClassifierProviderTest {
  @Test
  void namedEmptyAndKnowsNoServerWhateverTheConfiguration() {
    EmptyClassifierProvider p = new EmptyClassifierProvider();
    assertEquals("empty", p.name());
    ManagedServerClassifier c =
        p.create(new ProviderContext(ProviderConfig.of(Map.of("cotenant.anything", "x")), Path.of("r")));
    for (ServerDescription s :
        new ServerDescription[] {
          ServerDescription.stdio("kirocrew-computer", "kirocrew-computer"),
          ServerDescription.stdio("cron", "python", "-m", "mcp_cron"),
          ServerDescription.http("remote", "https://example.test")
        }) {
      assertEquals(Optional.empty(), c.sessionBoundReason(s), s.name());
    }
  }
}
