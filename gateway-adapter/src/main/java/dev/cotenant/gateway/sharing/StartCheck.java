package dev.cotenant.gateway.sharing;

import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.StartRecording;
import dev.cotenant.spi.rpc.ListingPager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Compares what a backend answers once started with the start recorded for it
 * ({@link StartRecording#differences}): its {@code initialize} result, and every listing the
 * recording holds, asked again of the live process page by page. Runs off the session's thread.
 */
final class StartCheck {
  /** The most pages of one listing asked again. */
  private static final int MAX_PAGES = 100;
  /** The most items of one listing read again. */
  private static final int MAX_ITEMS = 10_000;

  private StartCheck() {}

  /**
   * The parts the live backend answered differently for a client asking {@code requested};
   * empty when all agree, and when the backend could not be asked (no evidence either way).
   *
   * @param liveInitialize the backend's {@code initialize} result
   * @param timeout the whole comparison's time limit
   */
  static Optional<List<String>> differences(ServerSession session, Map<String, Object> liveInitialize, String requested,
      StartRecording recording, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, List<Map<String, Object>>> live = new TreeMap<>();
    for (String method : recording.listings().keySet()) {
      ListingPager pager = new ListingPager(method, field(method), MAX_PAGES, MAX_ITEMS);
      List<Map<String, Object>> pages = new ArrayList<>();
      try {
        while (pager.more()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return Optional.empty();
          }
          Map<String, Object> answer = session.request(method, pager.params()).get(left, TimeUnit.NANOSECONDS);
          if (answer.containsKey("error")) {
            pages.add(Map.of("error", answer.get("error")));
            break;
          }
          Object result = answer.get("result");
          pages.add(Map.of("result", result == null ? Map.of() : result));
          pager.read(result);
        }
      } catch (SessionException | ExecutionException | TimeoutException | ListingPager.RefusedPage e) {
        return Optional.empty();
      }
      live.put(method, pages);
    }
    return Optional.of(recording.differences(requested, liveInitialize, live));
  }

  /** The member of a listing's result that holds its items. */
  static String field(String method) {
    switch (method) {
      case "tools/list":
        return "tools";
      case "prompts/list":
        return "prompts";
      case "resources/list":
        return "resources";
      case "resources/templates/list":
        return "resourceTemplates";
      default:
        throw new IllegalArgumentException("not a listing: " + method);
    }
  }

  /**
   * The notification that tells a client the part {@code listing} of its server changed, when the
   * server's {@code capabilities} promise one ({@code listChanged: true}); empty otherwise (the
   * client was never promised it, and {@code initialize} has none).
   */
  static Optional<String> listChanged(String listing, Map<String, Object> capabilities) {
    String kind;
    switch (listing) {
      case "tools/list":
        kind = "tools";
        break;
      case "prompts/list":
        kind = "prompts";
        break;
      case "resources/list":
      case "resources/templates/list":
        kind = "resources";
        break;
      default:
        return Optional.empty();
    }
    return capabilities.get(kind) instanceof Map<?, ?> c && Boolean.TRUE.equals(c.get("listChanged"))
        ? Optional.of("notifications/" + kind + "/list_changed")
        : Optional.empty();
  }
}
