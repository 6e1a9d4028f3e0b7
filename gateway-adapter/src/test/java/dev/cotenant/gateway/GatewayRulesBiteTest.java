package dev.cotenant.gateway;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.gateway.archfixture.ImportsAProvider;
import dev.cotenant.gateway.archfixture.RunsAnHttpServer;
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
  void aRuntimeClassRunningAnHttpServerIsRejected() {
    JavaClasses fixture = new ClassFileImporter().importClasses(RunsAnHttpServer.class);
    EvaluationResult result = GatewayRules.NO_CLI_FRAMEWORK_OR_HTTP_SERVER.evaluate(fixture);
    assertTrue(result.hasViolation(), "the rule found nothing in " + RunsAnHttpServer.class.getName());
    assertTrue(
        result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("com.sun.net.httpserver.HttpServer")),
        result.getFailureReport()::toString);
  }
}
