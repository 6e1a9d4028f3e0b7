package dev.cotenant.api;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Holds {@code api} to docs/architecture.md: JDK only, and a core with no IO, clock, env or threads. */
@AnalyzeClasses(packages = "dev.cotenant.api", importOptions = ImportOption.DoNotIncludeTests.class)
class ApiLayeringTest {

  @ArchTest static final ArchRule only_jdk_and_jspecify = ApiRules.ONLY_JDK_AND_JSPECIFY;

  @ArchTest static final ArchRule no_io = ApiRules.NO_IO;

  @ArchTest static final ArchRule no_environment_or_system_properties = ApiRules.NO_ENVIRONMENT_OR_SYSTEM_PROPERTIES;

  @ArchTest static final ArchRule no_clock = ApiRules.NO_CLOCK;

  @ArchTest static final ArchRule no_threads = ApiRules.NO_THREADS;

  @ArchTest static final ArchRule no_randomness = ApiRules.NO_RANDOMNESS;

  @ArchTest static final ArchRule no_provider_discovery = ApiRules.NO_DISCOVERY;
}
