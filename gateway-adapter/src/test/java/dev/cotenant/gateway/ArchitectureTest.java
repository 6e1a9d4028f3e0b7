package dev.cotenant.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
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
 * provider implementation; only the CLI uses picocli.
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
        .because("provider discovery has exactly one entry point (DESIGN §1)")
        .check(MAIN);
  }

  @Test
  void theRuntimeSeesProvidersOnlyThroughTheSpi() {
    GatewayRules.NO_PROVIDER_IMPLEMENTATIONS.check(MAIN);
  }

  @Test
  void onlyTheCliPackageUsesACliFramework() {
    GatewayRules.NO_CLI_FRAMEWORK_OUTSIDE_THE_CLI.check(MAIN);
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
