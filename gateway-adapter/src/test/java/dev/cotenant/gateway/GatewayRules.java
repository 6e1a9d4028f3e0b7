package dev.cotenant.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/** The layering rules of the gateway adapter (DESIGN §1). */
final class GatewayRules {
  /**
   * The runtime sees providers only through the SPI: no class of the gateway adapter depends on a
   * provider implementation, so a host's provider replaces ours everywhere (the probe and the pool
   * included).
   */
  static final ArchRule NO_PROVIDER_IMPLEMENTATIONS =
      noClasses()
          .that()
          .resideInAPackage("dev.cotenant.gateway..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("dev.cotenant.providers..")
          .because("the runtime sees providers only through the SPI (DESIGN §1)");

  /** No picocli in the library part of the gateway adapter: only its {@code cli} package may use it. */
  static final ArchRule NO_CLI_FRAMEWORK_OUTSIDE_THE_CLI =
      noClasses()
          .that()
          .resideInAPackage("dev.cotenant.gateway..")
          .and()
          .resideOutsideOfPackage("dev.cotenant.gateway.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("picocli..")
          .because("a host that embeds the runtime must not inherit a CLI framework (DESIGN §1)");

  private GatewayRules() {}
}
