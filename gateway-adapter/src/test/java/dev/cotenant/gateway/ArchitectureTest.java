package dev.cotenant.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.cotenant.gateway.providers.ProviderLoader;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Exactly one class calls {@link ServiceLoader}: {@link ProviderLoader}; the runtime imports no
 * provider implementation, no CLI framework and no HTTP server; and neither picocli nor Jetty is on
 * the runtime's class path at all (they live in {@code cotenant-cli}).
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.cotenant");

  @Test
  void onlyTheLoaderUsesServiceLoader() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(ProviderLoader.class)
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(ServiceLoader.class)
        .because("provider discovery has exactly one entry point (docs/architecture.md)")
        .check(MAIN);
  }

  @Test
  void theRuntimeSeesProvidersOnlyThroughTheSpi() {
    GatewayRules.NO_PROVIDER_IMPLEMENTATIONS.check(MAIN);
  }

  @Test
  void theRuntimeUsesNoCliFrameworkAndNoHttpServer() {
    GatewayRules.NO_CLI_FRAMEWORK_OR_HTTP_SERVER.check(MAIN);
  }

  @Test
  void neitherPicocliNorJettyIsADependencyOfTheRuntime() {
    // The test class path holds the runtime's compile and runtime dependencies: a host depending
    // on cotenant-gateway-adapter would receive whatever is found here.
    for (String absent : new String[] {"picocli.CommandLine", "org.eclipse.jetty.server.Server", "jakarta.servlet.Servlet"}) {
      assertThrows(ClassNotFoundException.class, () -> Class.forName(absent, false, getClass().getClassLoader()),
          absent + " is on the gateway adapter's class path");
    }
  }

  @Test
  void theRuleSeesTheLoaderTheGatewayAndTheDefaultProviders() {
    // Guards against a vacuous rule: the import must contain both modules' main classes, and the
    // loader must really be the one calling ServiceLoader.
    assertTrue(MAIN.contain(Cotenant.class));
    assertTrue(MAIN.contain("dev.cotenant.providers.evidence.NotStdioProvider"));
    JavaClass loader = MAIN.get(ProviderLoader.class);
    assertTrue(
        loader.getDirectDependenciesFromSelf().stream()
            .anyMatch(d -> d.getTargetClass().isEquivalentTo(ServiceLoader.class)));
    assertTrue(MAIN.stream().noneMatch(c -> c.getName().contains("fixtures")), "test classes are not imported");
  }
}
