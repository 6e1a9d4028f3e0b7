package dev.cotenant.testkit.bite;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.ServerMessageHandler;
import dev.cotenant.spi.SessionTransport;
import dev.cotenant.testkit.contract.SessionTransportContract;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import dev.cotenant.testkit.reference.ReferenceSession;
import dev.cotenant.testkit.reference.ReferenceStdioTransport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link SessionTransportContract} fails a transport that breaks it. Every test of
 * this suite starts JVMs, so each broken transport runs the tests its defect concerns plus a few
 * that show it otherwise works; {@code ReferenceStdioTransportTest} runs the whole suite against
 * the honest transport.
 */
class SessionTransportContractBiteTest {
  @Test
  void aTransportWhoseCloseLeavesTheProcessRunning() {
    SuiteRun run = SuiteRun.of(CloseOnlyClosesStdin.class, "closeLeavesNoProcessBehind",
            "closeEndsAServerThatIgnoresTermination", "handshakeInTheInitializeEra", "closeFailsTheAnswersStillAwaited")
        .assertFailedExactly("closeLeavesNoProcessBehind", "closeEndsAServerThatIgnoresTermination");
    assertTrue(run.why("closeLeavesNoProcessBehind").contains("close left processes running"), run.why("closeLeavesNoProcessBehind"));
  }

  @Test
  void aTransportThatHandsAnswersOutInArrivalOrder() {
    SuiteRun.of(AnswersInArrivalOrder.class, "requestsInFlightFromSeveralThreadsGetTheirOwnAnswers",
            "handshakeInTheInitializeEra", "aServerRequestReachesTheHandlerAndItsReplyReachesTheServer")
        .assertFailedExactly("requestsInFlightFromSeveralThreadsGetTheirOwnAnswers");
  }

  @Test
  void aTransportThatDoesNotNoticeTheServerExit() {
    SuiteRun.of(IgnoresExit.class, "aServerThatExitsFailsPendingRequestsWithExited", "handshakeInTheInitializeEra",
            "abortKillsTheServerAndFailsAwaitedAnswers")
        .assertFailedExactly("aServerThatExitsFailsPendingRequestsWithExited");
  }

  @Test
  void aTransportThatNeverWritesTheHandlersReply() {
    SuiteRun.of(DropsReplies.class, "aServerRequestReachesTheHandlerAndItsReplyReachesTheServer",
            "aServerNotificationReachesTheHandler", "handshakeInTheInitializeEra")
        .assertFailedExactly("aServerRequestReachesTheHandlerAndItsReplyReachesTheServer");
  }

  /** Broken transports fail fast: the suite's bounds are shortened. */
  @ChecksProcessLeaks(waitMillis = 1_000)
  abstract static class Broken extends SessionTransportContract {
    @Override
    protected Duration timeout() {
      return Duration.ofSeconds(8);
    }

    @Override
    protected Duration teardownBound() {
      return Duration.ofSeconds(4);
    }

    @Override
    protected SessionTransport transport() {
      return new ReferenceStdioTransport(Duration.ofMillis(500)) {
        @Override
        protected ReferenceSession newSession(Process process, String label, ServerMessageHandler handler) {
          return session(process, label, handler);
        }
      };
    }

    abstract ReferenceSession session(Process process, String label, ServerMessageHandler handler);
  }

  /** {@code close} closes stdin and forgets the process: a server that does not exit on EOF, or its child, keeps running. */
  static class CloseOnlyClosesStdin extends Broken {
    @Override
    ReferenceSession session(Process process, String label, ServerMessageHandler handler) {
      return new ReferenceSession(process, label, handler, Duration.ofMillis(500)) {
        @Override
        public void close() {
          markGone("closed");
          closeStdin();
        }
      };
    }
  }

  /** Completes the oldest awaited request with whatever answer arrives. */
  static class AnswersInArrivalOrder extends Broken {
    @Override
    ReferenceSession session(Process process, String label, ServerMessageHandler handler) {
      return new ReferenceSession(process, label, handler, Duration.ofMillis(500)) {
        @Override
        protected void deliver(long id, Map<String, Object> response) {
          synchronized (pending) {
            Long oldest = pending.keySet().stream().min(Long::compare).orElse(id);
            CompletableFuture<Map<String, Object>> f = pending.remove(oldest);
            if (f != null) {
              f.complete(response);
            }
          }
        }
      };
    }
  }

  /** Does nothing when the server closes its output: answers awaited from a dead server never come. */
  static class IgnoresExit extends Broken {
    @Override
    ReferenceSession session(Process process, String label, ServerMessageHandler handler) {
      return new ReferenceSession(process, label, handler, Duration.ofMillis(500)) {
        @Override
        protected void outputClosed() {}
      };
    }
  }

  /** Asks the handler but never writes its reply back to the server. */
  static class DropsReplies extends Broken {
    @Override
    ReferenceSession session(Process process, String label, ServerMessageHandler handler) {
      return new ReferenceSession(process, label, handler, Duration.ofMillis(500)) {
        @Override
        protected void answerServerRequest(Object id, String method, Map<String, Object> params) {
          handler.onRequest(method, params);
        }
      };
    }
  }
}
