package dev.cotenant.testkit.process;

import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A JUnit 5 extension that fails a test which leaves a process behind.
 *
 * <p>Before each test it takes a {@link ProcessSnapshot} (this JVM's running descendants, and the
 * processes marked with its {@linkplain Processes#cookie() cookie}). After the test and its
 * {@code @AfterEach} methods, it waits a bounded time ({@link ChecksProcessLeaks#waitMillis()},
 * {@value #DEFAULT_WAIT_MILLIS} ms by default) for every process that is new since the snapshot to
 * exit. If any still runs, it kills them, each one's descendants first, and fails the test
 * naming every pid and command line, so one leaking test neither passes nor poisons the next.
 *
 * <p>Use it with {@code @ExtendWith(NoLeftoverProcesses.class)} or the meta-annotation
 * {@link ChecksProcessLeaks}. It assumes the tests of one JVM run one at a time: a process started
 * by a test running in parallel would be blamed on this one. A process that left the tree without
 * the cookie in its environment (started by something other than the kit's fake server) cannot be
 * seen. Stateless apart from the per-test snapshot kept in the extension context; thread-safe.
 */
public final class NoLeftoverProcesses implements BeforeEachCallback, AfterEachCallback {
  /** The default bound on the wait for new processes to exit, in milliseconds. */
  public static final long DEFAULT_WAIT_MILLIS = 5_000;

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NoLeftoverProcesses.class);
  private static final String SNAPSHOT = "snapshot";
  private static final Duration KILL_WAIT = Duration.ofSeconds(5);

  /** An extension for {@link org.junit.jupiter.api.extension.ExtendWith}. */
  public NoLeftoverProcesses() {}

  @Override
  public void beforeEach(ExtensionContext context) {
    context.getStore(NAMESPACE).put(SNAPSHOT, ProcessSnapshot.take());
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    ProcessSnapshot before = context.getStore(NAMESPACE).remove(SNAPSHOT, ProcessSnapshot.class);
    if (before == null) {
      return;
    }
    List<ProcessHandle> left = Processes.awaitExit(before.startedSince(), Duration.ofMillis(waitMillis(context)));
    if (left.isEmpty()) {
      return;
    }
    String named = left.stream().map(Processes::describe).collect(Collectors.joining("; "));
    Processes.killTrees(left);
    List<ProcessHandle> survivors = Processes.awaitExit(left, KILL_WAIT);
    throw new AssertionError(
        context.getDisplayName() + " left " + left.size() + " process(es) running " + waitMillis(context)
            + " ms after it ended (now killed" + (survivors.isEmpty() ? "" : ", " + survivors.size() + " survived SIGKILL")
            + "): " + named);
  }

  private static long waitMillis(ExtensionContext context) {
    Optional<ChecksProcessLeaks> a = context.getTestMethod().flatMap(m -> find(m));
    if (a.isEmpty()) {
      a = context.getTestClass().flatMap(NoLeftoverProcesses::find);
    }
    return a.map(ChecksProcessLeaks::waitMillis).orElse(DEFAULT_WAIT_MILLIS);
  }

  private static Optional<ChecksProcessLeaks> find(AnnotatedElement element) {
    return AnnotationSupport.findAnnotation(element, ChecksProcessLeaks.class);
  }
}
