package dev.cotenant.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/** The layering rules of the gateway adapter (docs/architecture.md). */
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
          .because("the runtime sees providers only through the SPI (docs/architecture.md)");

  /**
   * The gateway adapter is the embeddable runtime: no class of it uses a CLI framework or an HTTP
   * server, so a host that embeds it keeps its own (the CLI, the daemon and their Jetty live in
   * {@code cotenant-cli}).
   */
  static final ArchRule NO_CLI_FRAMEWORK_OR_HTTP_SERVER =
      noClasses()
          .that()
          .resideInAPackage("dev.cotenant.gateway..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "picocli..", "org.eclipse.jetty..", "jakarta.servlet..", "javax.servlet..", "com.sun.net.httpserver..",
              "org.apache.catalina..", "io.undertow..", "io.netty..")
          .because("a host that embeds the runtime must not inherit a CLI framework or an HTTP server (docs/architecture.md)");

  private GatewayRules() {}
}
