package dev.cotenant.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The layering and purity rules of docs/architecture.md for {@code api}. Each rule is checked against the
 * production classes by {@link ApiLayeringTest} and shown to bite by {@link ApiRulesBiteTest}.
 */
final class ApiRules {
  private ApiRules() {}

  static final String API = "dev.cotenant.api..";

  private static DescribedPredicate<JavaAccess<?>> member(Class<?> owner, String... names) {
    Set<String> wanted = Set.of(names);
    return DescribedPredicate.describe(
        owner.getSimpleName() + "." + wanted,
        a -> a.getTargetOwner().isEquivalentTo(owner) && wanted.contains(a.getTarget().getName()));
  }

  private static DescribedPredicate<JavaAccess<?>> nowInJavaTime() {
    return DescribedPredicate.describe(
        "java.time.*.now",
        a -> a.getTargetOwner().getPackageName().equals("java.time") && a.getTarget().getName().equals("now"));
  }

  static final ArchRule ONLY_JDK_AND_JSPECIFY =
      classes()
          .that()
          .resideInAPackage(API)
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "org.jspecify..", API)
          .because("api depends on the JDK only, plus jspecify annotations (docs/architecture.md)");

  static final ArchRule NO_IO =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("java.io..", "java.nio.file..")
          .because("the core does no IO (docs/architecture.md)");

  static final ArchRule NO_ENVIRONMENT_OR_SYSTEM_PROPERTIES =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .accessTargetWhere(member(System.class, "getenv", "getProperty", "getProperties", "setProperty"))
          .because("the core reads no environment and no configuration (docs/architecture.md)");

  static final ArchRule NO_CLOCK =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .accessTargetWhere(member(System.class, "currentTimeMillis", "nanoTime"))
          .orShould()
          .accessTargetWhere(nowInJavaTime())
          .orShould()
          .dependOnClassesThat()
          .areAssignableTo(Clock.class)
          .orShould()
          .dependOnClassesThat()
          .areAssignableTo(InstantSource.class)
          .because("the core reads no clock (docs/architecture.md)");

  static final ArchRule NO_THREADS =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .dependOnClassesThat()
          .areAssignableTo(Thread.class)
          .because("the core is pure and synchronous (docs/architecture.md)");

  static final ArchRule NO_RANDOMNESS =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .dependOnClassesThat()
          .areAssignableTo(Random.class)
          .orShould()
          .accessTargetWhere(member(Math.class, "random"))
          .orShould()
          .accessTargetWhere(member(java.util.UUID.class, "randomUUID"))
          .because("the same evidence gives the same verdict (docs/architecture.md, invariant 5)");

  static final ArchRule NO_DISCOVERY =
      noClasses()
          .that()
          .resideInAPackage(API)
          .should()
          .dependOnClassesThat()
          .areAssignableTo(ServiceLoader.class)
          .because("api never sees the SPI; providers are discovered in gateway-adapter (docs/architecture.md)");
}
