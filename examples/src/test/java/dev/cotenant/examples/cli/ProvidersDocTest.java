package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/providers.md shows the example provider and the test that holds it to the kit's contract
 * suite verbatim, so the page cannot drift from code that compiles and passes.
 */
class ProvidersDocTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void theProvidersPageIncludesTheExampleProviderAndItsContractTestVerbatim() throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/providers.md"));
    for (String file : List.of(
        "examples/src/main/java/dev/cotenant/examples/provider/HostManagedClassifierProvider.java",
        "examples/src/test/java/dev/cotenant/examples/HostManagedClassifierContractTest.java")) {
      assertTrue(doc.contains("```java\n" + Files.readString(ROOT.resolve(file)) + "```"), file + " is not included verbatim in docs/providers.md");
    }
  }
}
