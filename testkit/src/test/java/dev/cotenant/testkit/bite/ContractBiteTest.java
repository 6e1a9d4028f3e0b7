package dev.cotenant.testkit.bite;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.reflect.Modifier;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * What the bite test of a contract suite asserts: the honest implementation passes the whole
 * suite, and each broken one, a suite subclass nested in the bite test and marked
 * {@link FailsExactly}, fails exactly the tests named there (one dynamic test each, named after
 * the broken suite) while every other test of the suite passes.
 */
abstract class ContractBiteTest {
  private final String honestSuite;

  /** A bite test whose honest implementation is tested by the suite subclass named {@code honestSuite}. */
  ContractBiteTest(String honestSuite) {
    this.honestSuite = honestSuite;
  }

  @Test
  void theHonestImplementationPassesTheWholeSuite() throws Exception {
    SuiteRun.of(honestSuite).assertAllPassed();
  }

  @TestFactory
  Stream<DynamicTest> eachBrokenImplementationFailsExactlyTheTestsOfTheRuleItBreaks() {
    List<Class<?>> broken = Stream.of(getClass().getDeclaredClasses())
        .filter(c -> c.isAnnotationPresent(FailsExactly.class))
        .sorted(Comparator.comparing(Class::getSimpleName))
        .collect(Collectors.toList());
    assertFalse(broken.isEmpty(), getClass().getSimpleName() + " nests no suite marked @FailsExactly");
    for (Class<?> c : broken) {
      assertFalse(Modifier.isAbstract(c.getModifiers()), c.getSimpleName() + " is marked @FailsExactly but abstract");
    }
    return broken.stream().map(c -> DynamicTest.dynamicTest(c.getSimpleName(),
        () -> SuiteRun.of(c).assertFailedExactly(c.getAnnotation(FailsExactly.class).value())));
  }
}
