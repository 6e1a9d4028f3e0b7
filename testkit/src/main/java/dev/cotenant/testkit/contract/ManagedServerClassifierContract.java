package dev.cotenant.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.testkit.process.ProcessSnapshot;
import dev.cotenant.testkit.server.FakeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link ManagedServerClassifierProvider} and its {@link ManagedServerClassifier}:
 * answers from what it was built with, never by running server code, without a handshake; pure and
 * thread-safe.
 *
 * <p><b>Checks</b> (beside {@link NamedProviderContract}'s): the provider creates a classifier from
 * a context with empty configuration; an answer is never null; the classifier is pure (the same
 * server twice gets the same answer, and two classifiers created alike agree); thread-safe
 * (several threads get the same answers as one); it never starts the server it classifies (a
 * {@link FakeServer} that records its starts is among the servers) nor any other process.
 *
 * <p><b>Extending:</b> implement {@link #constructor()}; override {@link #servers()} to add the
 * servers your classifier knows (keep {@code super.servers()}), {@link #context()} for
 * configuration. Test methods are package-private: a subclass cannot override a rule away.
 *
 * <p><b>Thread-safety:</b> one suite instance per test, as JUnit does by default.
 */
public abstract class ManagedServerClassifierContract
    extends NamedProviderContract<ManagedServerClassifierProvider, ManagedServerClassifier> {
  private static final int ROUNDS = 50;

  /** For subclasses. */
  protected ManagedServerClassifierContract() {
    super(ManagedServerClassifierProvider::create);
  }

  /** The servers classified; {@link Samples#servers()} by default. */
  protected List<ServerDescription> servers() {
    return Samples.servers();
  }

  /** A classifier created by a new provider from {@link #context()}. */
  protected final ManagedServerClassifier classifier() {
    return created();
  }

  @Test
  void answersAreNeverNull() {
    ManagedServerClassifier c = classifier();
    for (ServerDescription server : servers()) {
      answerOf(c, server);
    }
  }

  @Test
  void answersArePure() {
    assertPure(classifier(), classifier(), servers(), ManagedServerClassifierContract::answerOf,
        "a second call for the same server answered differently", "two classifiers created alike answered differently");
  }

  @Test
  void answersAreThreadSafe() throws Exception {
    ManagedServerClassifier c = classifier();
    List<ServerDescription> servers = servers();
    List<Optional<String>> expected = new ArrayList<>();
    for (ServerDescription s : servers) {
      expected.add(answerOf(c, s));
    }
    assertEquals(List.of(),
        Concurrently.disagreements(ROUNDS, 3, servers, expected, c::sessionBoundReason, k -> servers.get(k).name()),
        "called from " + Concurrently.THREADS + " threads at once, the classifier answered differently");
  }

  @Test
  void classifyingNeverRunsTheServer() throws Exception {
    Path starts = directory.resolve("starts.txt");
    ServerDescription fake = FakeServer.builder().name("fake-managed").recordsStartsIn(starts).build().description();
    ProcessSnapshot before = ProcessSnapshot.take();
    ManagedServerClassifier c = classifier();
    answerOf(c, fake);
    for (ServerDescription server : servers()) {
      answerOf(c, server);
    }
    assertNoProcessStartedSince(before, "classifying");
    assertTrue(!Files.exists(starts) || Files.readString(starts).isEmpty(), "classifying ran the server it classified");
  }

  private static Optional<String> answerOf(ManagedServerClassifier c, ServerDescription server) {
    Optional<String> answer = c.sessionBoundReason(server);
    assertNotNull(answer, "sessionBoundReason returned null for " + server.name());
    return answer;
  }
}
