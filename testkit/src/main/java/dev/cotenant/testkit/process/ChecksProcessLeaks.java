package dev.cotenant.testkit.process;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails every test of the annotated class (or the annotated method) that leaves a process
 * running: see {@link NoLeftoverProcesses}. Inherited, so a contract suite carrying it checks
 * every subclass.
 *
 * <pre>{@code
 * @ChecksProcessLeaks
 * class MyTransportTest { ... }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(NoLeftoverProcesses.class)
public @interface ChecksProcessLeaks {
  /** How long a new process may take to exit after the test (and its {@code @AfterEach}) ended. */
  long waitMillis() default NoLeftoverProcesses.DEFAULT_WAIT_MILLIS;
}
