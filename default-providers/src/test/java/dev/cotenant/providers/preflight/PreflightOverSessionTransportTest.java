package dev.cotenant.providers.preflight;

import static dev.cotenant.providers.preflight.PreflightHarness.assertNoDivergence;
import static dev.cotenant.providers.preflight.PreflightHarness.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.providers.session.StdioSessionTransport;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.SessionTransport;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pre-flight starts servers only through the session transport it is given: one session per
 * caller, each closed afterwards, whatever the transport does; a transport that cannot start or
 * hangs in {@code open} is a reason, not an exception or a hang.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PreflightOverSessionTransportTest extends HarnessedProcessTest {
  private static RecordingSessions recordingStdio() {
    return new RecordingSessions(new StdioSessionTransport(settings().sessionSettings()));
  }

  @Test
  void eachCallerOpensOneSessionThroughTheGivenTransportAndClosesIt() throws Exception {
    RecordingSessions sessions = recordingStdio();
    PreflightResult r = new StdioPreflightTransport(sessions, settings()).preflight(h.javaServer("legacy", "legacy"));
    assertNoDivergence(r);
    assertEquals(2, sessions.opens());
    assertEquals(Set.of("preflight-a", "preflight-b"), Set.copyOf(sessions.labels()));
    assertEquals(2, sessions.closes());
  }

  @Test
  void theProviderUsesTheSessionTransportTheRuntimeSelected() throws Exception {
    RecordingSessions sessions = recordingStdio();
    Map<String, String> config = Map.of(PreflightSettings.TIMEOUT_MS, "20000",
        PreflightSettings.STDIN_CLOSE_WAIT_MS, "300", PreflightSettings.TERM_WAIT_MS, "300");
    PreflightTransport t = new StdioPreflightTransportProvider()
        .create(new ProviderContext(ProviderConfig.of(config), dir, () -> sessions));
    assertNoDivergence(t.preflight(h.javaServer("modern", "modern")));
    assertNoDivergence(t.preflight(h.javaServer("legacy", "legacy")));
    assertEquals(4, sessions.opens(), "two sessions per pre-flight");
    assertEquals(4, sessions.closes());
  }

  @Test
  void aRespawnInTheAutoFallbackStaysInsideTheSession() throws Exception {
    RecordingSessions sessions = recordingStdio();
    PreflightResult r = new StdioPreflightTransport(sessions, settings())
        .preflight(h.javaServer("rusty", "legacy", "exit-on-discover"));
    assertNoDivergence(r);
    h.assertRecordedAtLeast(4);
    assertEquals(2, sessions.opens());
    assertEquals(2, sessions.closes());
  }

  /**
   * A transport that cannot start the server gives its own reason; one that throws anything else
   * leaves the server unmeasurable.
   */
  static Stream<Arguments> failingOpens() {
    SessionTransport refusing = (server, label, handler) -> {
      throw new SessionException(SessionException.Kind.START, "no container runtime on this host");
    };
    SessionTransport broken = (server, label, handler) -> {
      throw new IllegalStateException("bug");
    };
    return Stream.of(
        Arguments.of(Named.of("a transport that cannot start the server", refusing), "no container runtime on this host"),
        Arguments.of(Named.of("a transport that throws", broken), "unmeasurable: IllegalStateException"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failingOpens")
  void aTransportWhoseOpenFailsIsAReasonNotAnException(SessionTransport sessions, String reason) throws Exception {
    PreflightResult r = new StdioPreflightTransport(sessions, settings()).preflight(h.javaServer("legacy", "legacy"));
    assertFalse(r.ran());
    assertEquals(reason, r.notRunReason());
  }

  @Test
  void anOpenThatHangsIsBoundedByTheTimeout() throws Exception {
    SessionTransport hanging = (server, label, handler) -> {
      new CountDownLatch(1).await();
      throw new AssertionError("unreachable");
    };
    long start = System.nanoTime();
    PreflightResult r = new StdioPreflightTransport(hanging, settings(PreflightSettings.TIMEOUT_MS, "800"))
        .preflight(h.javaServer("legacy", "legacy"));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertFalse(r.ran());
    assertEquals("not started in 800 ms", r.notRunReason());
    assertTrue(tookMs < 10_000, "took " + tookMs + " ms");
  }

  @Test
  void cancellationInterruptsAnOpenInProgress() throws Exception {
    CountDownLatch opening = new CountDownLatch(2);
    SessionTransport hanging = (server, label, handler) -> {
      opening.countDown();
      new CountDownLatch(1).await();
      throw new AssertionError("unreachable");
    };
    StdioPreflightTransport t = new StdioPreflightTransport(hanging, settings(PreflightSettings.TIMEOUT_MS, "60000"));
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        t.preflight(h.javaServer("legacy", "legacy"));
        thrown.complete(null);
      } catch (Throwable e) {
        thrown.complete(e);
      }
    });
    caller.start();
    assertTrue(opening.await(30, TimeUnit.SECONDS), "both callers are opening");
    caller.interrupt();
    Throwable e = thrown.get(30, TimeUnit.SECONDS);
    assertTrue(e instanceof InterruptedException, "got " + e);
    assertEquals(List.of(), h.recordedPids());
  }
}
