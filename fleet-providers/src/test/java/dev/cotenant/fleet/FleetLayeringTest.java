package dev.cotenant.fleet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Holds {@code fleet-providers} to docs/architecture.md: built on {@code api} and {@code spi} only, plus its
 * drivers (the PostgreSQL JDBC driver through {@code java.sql}, Jedis, Jackson for the JSON
 * columns) and SLF4J; never the default providers, the runtime or the CLI. The second test shows
 * the rule bites.
 */
class FleetLayeringTest {
  static final ArchRule ONLY_API_SPI_AND_DRIVERS = classes()
      .that().resideInAPackage("dev.cotenant.fleet..")
      .should().onlyDependOnClassesThat().resideInAnyPackage(
          "java..", "javax..", "dev.cotenant.api..", "dev.cotenant.spi..", "dev.cotenant.fleet..",
          "org.postgresql..", "redis.clients..", "tools.jackson..", "com.fasterxml.jackson.annotation..",
          "org.slf4j..", "org.jspecify..", "org.apache.commons.pool2..")
      .as("fleet providers depend on api, spi, their drivers and SLF4J only");

  @Test
  void fleetProvidersDependOnApiSpiAndTheirDriversOnly() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.cotenant.fleet");
    ONLY_API_SPI_AND_DRIVERS.check(main);
    noClasses().that().resideInAPackage("dev.cotenant.fleet..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.cotenant.providers..", "dev.cotenant.gateway..",
            "dev.cotenant.cli..")
        .check(main);
  }

  @Test
  void theRuleBitesOnATestClassThatUsesTheRuntime() {
    // This test class itself lives in dev.cotenant.fleet and uses JUnit and ArchUnit: outside the rule.
    JavaClasses tests = new ClassFileImporter().importClasses(FleetLayeringTest.class);
    assertThrows(AssertionError.class, () -> ONLY_API_SPI_AND_DRIVERS.check(tests));
  }
}
