package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.api.archfixture.Impure;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each api rule rejects a class that breaks it, so a green {@link ApiLayeringTest} means something. */
class ApiRulesBiteTest {

  private static final JavaClasses IMPURE = new ClassFileImporter().importPackagesOf(Impure.class);

  static Stream<Arguments> rules() {
    return Stream.of(
        Arguments.of("only_jdk_and_jspecify", ApiRules.ONLY_JDK_AND_JSPECIFY, List.of("org.quicktheories.generators.Generate")),
        Arguments.of("no_io", ApiRules.NO_IO, List.of("java.io.File")),
        Arguments.of(
            "no_environment", ApiRules.NO_ENVIRONMENT_OR_SYSTEM_PROPERTIES, List.of("System.getenv", "System.getProperty")),
        Arguments.of(
            "no_clock",
            ApiRules.NO_CLOCK,
            List.of("System.currentTimeMillis", "Instant.now", "java.time.Clock")),
        Arguments.of("no_threads", ApiRules.NO_THREADS, List.of("java.lang.Thread")),
        Arguments.of("no_randomness", ApiRules.NO_RANDOMNESS, List.of("java.util.Random")),
        Arguments.of("no_discovery", ApiRules.NO_DISCOVERY, List.of("java.util.ServiceLoader")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rules")
  void theRuleRejectsAClassThatBreaksIt(String name, ArchRule rule, List<String> mentioned) {
    EvaluationResult result = rule.evaluate(IMPURE);
    assertTrue(result.hasViolation(), name + " found nothing in " + Impure.class.getName());
    String report = String.join("\n", result.getFailureReport().getDetails());
    for (String m : mentioned) {
      assertTrue(report.contains(m), () -> name + " does not mention " + m + ":\n" + report);
    }
  }
}
