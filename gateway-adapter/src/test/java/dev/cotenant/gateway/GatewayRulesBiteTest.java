package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.gateway.archfixture.ImportsAProvider;
import dev.cotenant.gateway.archfixture.RunsAnHttpServer;
import org.junit.jupiter.api.Test;

/** Each gateway rule rejects a class that breaks it, so a green {@link ArchitectureTest} means something. */
class GatewayRulesBiteTest {
  @Test
  void aGatewayClassImportingAProviderImplementationIsRejected() {
    assertRejects(GatewayRules.NO_PROVIDER_IMPLEMENTATIONS, ImportsAProvider.class, "dev.cotenant.providers.records.FileRecordStores");
  }

  @Test
  void aRuntimeClassRunningAnHttpServerIsRejected() {
    assertRejects(GatewayRules.NO_CLI_FRAMEWORK_OR_HTTP_SERVER, RunsAnHttpServer.class, "com.sun.net.httpserver.HttpServer");
  }

  /** {@code rule} finds a violation in {@code fixture}, and one of its details names {@code offending}. */
  private static void assertRejects(ArchRule rule, Class<?> fixture, String offending) {
    JavaClasses classes = new ClassFileImporter().importClasses(fixture);
    EvaluationResult result = rule.evaluate(classes);
    assertTrue(result.hasViolation(), "the rule found nothing in " + fixture.getName());
    assertTrue(
        result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains(offending)),
        result.getFailureReport()::toString);
  }
}
