package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.cotenant.cli.archfixture.BuildsItsOwnEnvelope;
import dev.cotenant.cli.archfixture.UsesTheVocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Only {@code dev.cotenant.spi.rpc} builds JSON-RPC envelopes, in the main code of every module
 * on the daemon's class path (api, spi, default-providers, gateway-adapter, cli, testkit,
 * fleet-providers). The sample servers under {@code examples} and the benchmarks' raw peers are
 * stand-ins for servers nobody here wrote, and are outside the rule.
 */
class EnvelopeRuleTest {
  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(location -> !location.matches(java.util.regex.Pattern.compile(".*-tests\\.jar.*")))
      .importPackages("dev.cotenant");

  @Test
  void onlyTheVocabularyBuildsEnvelopes() {
    for (String module : List.of("dev.cotenant.spi.rpc.Envelope", "dev.cotenant.gateway.mux.Multiplexer",
        "dev.cotenant.cli.daemon.Wire", "dev.cotenant.testkit.server.FakeMcpServer")) {
      assertTrue(MAIN.contain(module), "the import holds " + module);
    }
    EnvelopeRule.ONLY_THE_VOCABULARY_BUILDS_ENVELOPES.check(MAIN);
  }

  /**
   * The house has no import cycle: no package of any module on the daemon's class path depends,
   * through others, on itself (each module's own architecture test checks its packages; this one
   * sees them all at once, the CLI's included).
   */
  @Test
  void noPackageOfAnyModuleDependsOnItselfThroughOthers() {
    com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices()
        .matching("dev.cotenant.(**)")
        .should()
        .beFreeOfCycles()
        .check(MAIN);
  }

  @Test
  void theRuleBitesAClassThatWritesItsOwnEnvelopeAndSparesOneThatUsesTheVocabulary() {
    EvaluationResult bad = EnvelopeRule.ONLY_THE_VOCABULARY_BUILDS_ENVELOPES.evaluate(
        new ClassFileImporter().importClasses(BuildsItsOwnEnvelope.class));
    assertTrue(bad.hasViolation());
    assertEquals(1, bad.getFailureReport().getDetails().size(), bad.getFailureReport()::toString);
    assertTrue(bad.getFailureReport().getDetails().get(0).contains(BuildsItsOwnEnvelope.class.getName()));

    EvaluationResult good = EnvelopeRule.ONLY_THE_VOCABULARY_BUILDS_ENVELOPES.evaluate(
        new ClassFileImporter().importClasses(UsesTheVocabulary.class));
    assertTrue(!good.hasViolation(), good.getFailureReport()::toString);
  }
}
