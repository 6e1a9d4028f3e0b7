package dev.cotenant.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The kit's own layering: JSON stays in the fake server, and the kit sees Cotenant only through api and spi. */
class LayeringTest {
  private static final JavaClasses KIT = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.cotenant.testkit");

  @Test
  void onlyTheFakeServerUsesJackson() {
    noClasses().that().resideOutsideOfPackage("dev.cotenant.testkit.server..")
        .should().dependOnClassesThat().resideInAPackage("tools.jackson..")
        .check(KIT);
  }

  @Test
  void theKitSeesCotenantOnlyThroughApiAndSpi() {
    noClasses().should().dependOnClassesThat()
        .resideInAnyPackage("dev.cotenant.providers..", "dev.cotenant.gateway..", "dev.cotenant.cli..")
        .check(KIT);
  }

  @Test
  void theFakeServerDoesNotDependOnTheSuites() {
    noClasses().that().resideInAPackage("dev.cotenant.testkit.server..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.cotenant.testkit.contract..", "dev.cotenant.testkit.records..")
        .check(KIT);
  }
}
