package dev.cotenant.testkit.server;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * What {@link FakeServer.Builder} accepts. The fake server itself runs in a process of its own,
 * where a mutation run cannot reach it; the tests that start it check what it does.
 */
class FakeServerBuilderTest {
  /** Kills {@code exitAfter}'s bound made {@code <= 0}: 0 means exiting on the first request. */
  @Test
  void aFakeServerMayExitOnItsFirstRequestButNotBeforeIt() {
    FakeServer.Builder b = FakeServer.builder();
    assertSame(b, b.exitAfter(0));
    assertThrows(IllegalArgumentException.class, () -> FakeServer.builder().exitAfter(-1));
  }
}
