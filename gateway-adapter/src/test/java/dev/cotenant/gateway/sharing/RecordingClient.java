package dev.cotenant.gateway.sharing;

import dev.cotenant.gateway.mux.ClientSink;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A client of the sharing tests: records what it is sent, and waits (up to {@link #WAIT}) for the
 * message it expects, keeping the ones it passed over in {@link #skipped}.
 */
final class RecordingClient implements ClientSink {
  static final Duration WAIT = Duration.ofSeconds(30);

  final BlockingQueue<Map<String, Object>> got = new LinkedBlockingQueue<>();
  final List<Map<String, Object>> skipped = new CopyOnWriteArrayList<>();

  @Override
  public void send(Map<String, Object> message) {
    got.add(message);
  }

  /** The next message matching {@code which}, the others passed over kept in {@link #skipped}. */
  Map<String, Object> next(Predicate<Map<String, Object>> which) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      Map<String, Object> m = got.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (m != null && which.test(m)) {
        return m;
      }
      if (m != null) {
        skipped.add(m);
      }
    }
    throw new AssertionError("nothing matching arrived within " + WAIT.toSeconds() + " s; got " + skipped);
  }

  /** The answer to request {@code id}. */
  Map<String, Object> answer(Object id) throws InterruptedException {
    return next(m -> id.equals(m.get("id")) && !m.containsKey("method"));
  }

  /** A message matching {@code which}, among those passed over so far or the next ones. */
  Map<String, Object> seen(Predicate<Map<String, Object>> which) throws InterruptedException {
    for (Map<String, Object> m : skipped) {
      if (which.test(m)) {
        return m;
      }
    }
    return next(which);
  }
}
