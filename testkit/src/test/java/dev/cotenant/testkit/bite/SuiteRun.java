package dev.cotenant.testkit.bite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/** One run of a contract suite's concrete subclass through the Jupiter engine, and what came of each test. */
final class SuiteRun {
  final Class<?> suite;
  /** The tests selected: every test of the suite, or the ones named. */
  final Set<String> selected;
  final Map<String, String> failed = new TreeMap<>();
  final Set<String> succeeded = new TreeSet<>();
  final long skipped;
  final long aborted;
  final long containersFailed;

  private SuiteRun(Class<?> suite, Set<String> selected, EngineExecutionResults results) {
    this.suite = suite;
    this.selected = selected;
    for (Event e : results.testEvents().failed().list()) {
      String why = e.getPayload(TestExecutionResult.class)
          .flatMap(TestExecutionResult::getThrowable)
          .map(t -> t.getClass().getSimpleName() + ": " + t.getMessage())
          .orElse("?");
      failed.put(method(e), why);
    }
    for (Event e : results.testEvents().succeeded().list()) {
      succeeded.add(method(e));
    }
    this.skipped = results.testEvents().skipped().count();
    this.aborted = results.testEvents().aborted().count();
    this.containersFailed = results.containerEvents().failed().count();
  }

  /** Runs every test of {@code suite}. */
  static SuiteRun of(Class<?> suite) {
    return new SuiteRun(suite, testMethods(suite), EngineTestKit.engine("junit-jupiter").selectors(selectClass(suite)).execute());
  }

  /**
   * Runs the named tests of {@code suite} only: for the suites whose every test starts processes,
   * the tests a defect concerns and a few that show the provider otherwise works.
   */
  static SuiteRun of(Class<?> suite, String... tests) {
    Set<String> selected = new TreeSet<>(Set.of(tests));
    assertTrue(testMethods(suite).containsAll(selected), "not tests of " + suite.getSimpleName() + ": " + selected);
    List<DiscoverySelector> selectors = new ArrayList<>();
    for (String test : selected) {
      selectors.add(selectMethod(suite, test));
    }
    return new SuiteRun(suite, selected, EngineTestKit.engine("junit-jupiter").selectors(selectors.toArray(new DiscoverySelector[0])).execute());
  }

  /** Runs every test of the class named {@code suite}. */
  static SuiteRun of(String suite) throws ClassNotFoundException {
    return of(Class.forName(suite));
  }

  private static String method(Event e) {
    return e.getTestDescriptor().getSource()
        .filter(MethodSource.class::isInstance)
        .map(s -> ((MethodSource) s).getMethodName())
        .orElse(e.getTestDescriptor().getDisplayName());
  }

  /** Every {@code @Test} method of {@code type} and its superclasses. */
  static Set<String> testMethods(Class<?> type) {
    Set<String> out = new TreeSet<>();
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Test.class)) {
          out.add(m.getName());
        }
      }
    }
    return out;
  }

  private String report() {
    return suite.getSimpleName() + ": failed " + failed.keySet() + ", succeeded " + succeeded.size()
        + " of " + selected.size() + ", skipped " + skipped + ", aborted " + aborted + ", containers failed " + containersFailed
        + failed.entrySet().stream().map(e -> "\n  " + e.getKey() + " -> " + e.getValue()).collect(Collectors.joining());
  }

  /** Every test of the suite ran and passed. */
  SuiteRun assertAllPassed() {
    assertEquals(Map.of(), failed, report());
    assertEquals(0, skipped + aborted + containersFailed, report());
    assertEquals(selected, succeeded, report());
    return this;
  }

  /** Exactly the tests named failed; every other test of the suite ran and passed. */
  SuiteRun assertFailedExactly(String... names) {
    Set<String> expected = new TreeSet<>(Set.of(names));
    assertTrue(selected.containsAll(expected), "not tests selected from " + suite.getSimpleName() + ": " + expected);
    assertEquals(expected, failed.keySet(), report());
    Set<String> others = new TreeSet<>(selected);
    others.removeAll(expected);
    assertEquals(others, succeeded, report());
    assertEquals(0, skipped + aborted + containersFailed, report());
    return this;
  }

  /**
   * The tests named failed, and every other failure's message contains {@code otherwise} (a
   * defect that every test notices in the same way, such as a process left running).
   */
  SuiteRun assertFailedAtLeast(Set<String> names, String otherwise) {
    assertTrue(failed.keySet().containsAll(names), report());
    failed.forEach((test, why) -> assertTrue(names.contains(test) || why.contains(otherwise), report()));
    assertEquals(0, skipped + aborted + containersFailed, report());
    return this;
  }

  /** The failure message of {@code test}. */
  String why(String test) {
    return failed.getOrDefault(test, "");
  }
}
