package dev.cotenant.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.gateway.archcycle.BackIntoTheFixtures;
import dev.cotenant.gateway.archfixture.ClosesACycle;
import dev.cotenant.gateway.archfixture.ReachesTheAssemblyPoint;
import dev.cotenant.gateway.providers.ProviderLoader;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Exactly one class calls {@link ServiceLoader}: {@link ProviderLoader}; the runtime imports no
 * provider implementation, no CLI framework and no HTTP server; and neither picocli nor Jetty is on
 * the runtime's class path at all (they live in {@code cotenant-cli}). The packages have no import
 * cycle: neither among the gateway adapter's packages, nor between any two packages of the modules
 * on its class path (api, spi, the default providers, the test kit), and no package below the
 * assembly point reaches back to {@link Cotenant}.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.cotenant");

  /** Each package of the gateway adapter, with its subpackages, is a slice; no two depend on each other. */
  static final ArchRule GATEWAY_PACKAGES_FREE_OF_CYCLES =
      slices().matching("dev.cotenant.gateway.(*)..").should().beFreeOfCycles()
          .because("a package of the runtime is understood and tested from its dependencies up (docs/architecture.md)");

  /** Every package of every module on the class path is a slice; no two depend on each other. */
  static final ArchRule MODULE_PACKAGES_FREE_OF_CYCLES =
      slices().matching("dev.cotenant.(**)").should().beFreeOfCycles()
          .because("modules and their packages layer, from api and spi up (docs/architecture.md)");

  /** Only the assembly point's own package depends on it: the runtime's parts take narrow functions. */
  static final ArchRule NOTHING_BELOW_REACHES_THE_ASSEMBLY_POINT =
      noClasses()
          .that().resideInAPackage("dev.cotenant.gateway..")
          .and().resideOutsideOfPackage("dev.cotenant.gateway")
          .should().dependOnClassesThat().resideInAPackage("dev.cotenant.gateway")
          .because("Cotenant assembles the runtime's parts; a part that needs it takes the function it calls");

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
  void theGatewayAdaptersPackagesHaveNoCycles() {
    GATEWAY_PACKAGES_FREE_OF_CYCLES.check(MAIN);
  }

  @Test
  void noPackageOfTheModulesOnTheClassPathIsInACycle() {
    MODULE_PACKAGES_FREE_OF_CYCLES.check(MAIN);
  }

  @Test
  void noPartOfTheRuntimeDependsOnTheAssemblyPoint() {
    NOTHING_BELOW_REACHES_THE_ASSEMBLY_POINT.check(MAIN);
  }

  @Test
  void theCycleRulesBite() {
    JavaClasses fixture = new ClassFileImporter().importClasses(ClosesACycle.class, BackIntoTheFixtures.class);
    for (ArchRule rule : new ArchRule[] {GATEWAY_PACKAGES_FREE_OF_CYCLES, MODULE_PACKAGES_FREE_OF_CYCLES}) {
      EvaluationResult result = rule.evaluate(fixture);
      assertTrue(result.hasViolation(), "the rule found no cycle in the fixtures: " + rule);
      assertTrue(result.getFailureReport().toString().contains(ClosesACycle.class.getName()), result.getFailureReport()::toString);
    }
  }

  @Test
  void theAssemblyPointRuleBites() {
    EvaluationResult result =
        NOTHING_BELOW_REACHES_THE_ASSEMBLY_POINT.evaluate(new ClassFileImporter().importClasses(ReachesTheAssemblyPoint.class));
    assertTrue(result.hasViolation(), "the rule found nothing in " + ReachesTheAssemblyPoint.class.getName());
    assertTrue(result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains(Cotenant.class.getName())),
        result.getFailureReport()::toString);
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
