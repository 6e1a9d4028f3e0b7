package dev.cotenant.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.spi.archfixture.UsesALibrary;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The spi rule rejects a class that reaches past api, so a green {@link SpiLayeringTest} means something. */
class SpiRulesBiteTest {

  @Test
  void theRuleRejectsADependencyOutsideTheJdkAndApi() {
    EvaluationResult result =
        SpiRules.ONLY_JDK_JSPECIFY_AND_API.evaluate(new ClassFileImporter().importClasses(UsesALibrary.class));
    assertTrue(result.hasViolation());
    List<String> details = result.getFailureReport().getDetails();
    assertTrue(details.stream().allMatch(d -> d.contains("org.quicktheories.generators.Generate")), details::toString);
    assertEquals(
        List.of(),
        details.stream().filter(d -> d.contains("allowed()")).collect(Collectors.toList()),
        "a use of api is allowed");
  }
}
