package dev.cotenant.spi;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Holds {@code spi} to docs/architecture.md: it depends on {@code api} and the JDK only. */
@AnalyzeClasses(packages = "dev.cotenant.spi", importOptions = ImportOption.DoNotIncludeTests.class)
class SpiLayeringTest {

  @ArchTest static final ArchRule only_jdk_jspecify_and_api = SpiRules.ONLY_JDK_JSPECIFY_AND_API;
}
