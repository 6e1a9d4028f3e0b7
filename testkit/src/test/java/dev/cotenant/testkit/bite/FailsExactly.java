package dev.cotenant.testkit.bite;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a broken provider's suite nested in a bite test: the tests of the suite that its defect
 * fails, and only those. {@link ContractBiteTest} runs every suite so marked.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface FailsExactly {
  /** The names of the suite's test methods that fail; every other test of the suite passes. */
  String[] value();
}
