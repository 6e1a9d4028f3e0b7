package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.gateway.archfixture.ImportsAProvider;
import dev.cotenant.gateway.archfixture.UsesPicocli;
import org.junit.jupiter.api.Test;

/** Each gateway rule rejects a class that breaks it, so a green {@link ArchitectureTest} means something. */
class GatewayRulesBiteTest {
  @Test
  void aGatewayClassImportingAProviderImplementationIsRejected() {
    JavaClasses fixture = new ClassFileImporter().importClasses(ImportsAProvider.class);
    EvaluationResult result = GatewayRules.NO_PROVIDER_IMPLEMENTATIONS.evaluate(fixture);
    assertTrue(result.hasViolation(), "the rule found nothing in " + ImportsAProvider.class.getName());
    assertTrue(
        result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("dev.cotenant.providers.records.FileRecordStores")),
        result.getFailureReport()::toString);
  }

  @Test
  void aLibraryClassUsingPicocliIsRejected() {
    JavaClasses fixture = new ClassFileImporter().importClasses(UsesPicocli.class);
    EvaluationResult result = GatewayRules.NO_CLI_FRAMEWORK_OUTSIDE_THE_CLI.evaluate(fixture);
    assertTrue(result.hasViolation(), "the rule found nothing in " + UsesPicocli.class.getName());
    assertTrue(
        result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("picocli.CommandLine")),
        result.getFailureReport()::toString);
  }
}
