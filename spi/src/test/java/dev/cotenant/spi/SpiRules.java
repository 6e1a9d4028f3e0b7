package dev.cotenant.spi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.lang.ArchRule;

/** The layering rule of docs/architecture.md for {@code spi}: the JDK, jspecify and {@code api}, nothing else. */
final class SpiRules {
  private SpiRules() {}

  static final ArchRule ONLY_JDK_JSPECIFY_AND_API =
      classes()
          .that()
          .resideInAPackage("dev.cotenant.spi..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "org.jspecify..", "dev.cotenant.api..", "dev.cotenant.spi..")
          .because("spi depends on api only; Jackson, Guice and implementations live elsewhere (docs/architecture.md)");
}
