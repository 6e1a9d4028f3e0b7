package dev.cotenant.examples.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/integration.md shows every integration example verbatim, so the page cannot drift from code that compiles. */
class IntegrationDocTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void theIntegrationPageIncludesEveryExampleVerbatim() throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/integration.md"));
    List<Path> examples;
    try (Stream<Path> files = Files.list(ROOT.resolve("examples/src/main/java/dev/cotenant/examples/integration"))) {
      examples = files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).sorted().toList();
    }
    assertFalse(examples.isEmpty());
    for (Path example : examples) {
      assertTrue(doc.contains("```java\n" + Files.readString(example) + "```"), example.getFileName() + " is not included verbatim in docs/integration.md");
    }
  }
}
