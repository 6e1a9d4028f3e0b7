package dev.cotenant.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The CLI and the daemon are surfaces over the gateway adapter's one assembly point: they import
 * no provider implementation and never call {@link ServiceLoader} themselves.
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
}
