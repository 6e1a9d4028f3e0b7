package dev.cotenant.cli;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The CLI and the daemon are surfaces over the gateway adapter's one assembly point: they import
 * no provider implementation and never call {@link ServiceLoader} themselves. The daemon shows
 * what the commands show through the shared views ({@code dev.cotenant.cli.views}), not through
 * the command classes, and the module's packages depend on one another without a cycle.
 */
class CliArchitectureTest {
  private static final JavaClasses CLI =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.cotenant.cli");

  @Test
  void theCliSeesProvidersOnlyThroughTheAssemblyPoint() {
    assertTrue(CLI.contain(Main.class), "the import holds the CLI's classes");
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.cotenant.providers..")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(ServiceLoader.class)
        .because("every surface uses the same providers through one assembly point (docs/architecture.md)")
        .check(CLI);
  }

  @Test
  void theDaemonUsesTheViewsNotTheCommands() {
    noClasses()
        .that()
        .resideInAPackage("dev.cotenant.cli.daemon..")
        .should()
        .dependOnClassesThat(resideInAPackage("dev.cotenant.cli").and(simpleNameEndingWith("Command")))
        .because("the API answers with the JSON the commands print, built by dev.cotenant.cli.views for both")
        .check(CLI);
  }

  /** No package of the CLI module depends, through others, on itself. */
  @Test
  void theCliPackagesHaveNoCycle() {
    slices()
        .matching("dev.cotenant.(**)")
        .should()
        .beFreeOfCycles()
        .check(CLI);
  }
}
