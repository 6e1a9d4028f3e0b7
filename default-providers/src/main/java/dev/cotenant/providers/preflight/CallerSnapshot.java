package dev.cotenant.providers.preflight;

import dev.cotenant.api.HandshakeComparator;
import dev.cotenant.providers.session.JsonRpc;
import dev.cotenant.spi.HandshakeEra;
import dev.cotenant.spi.Mcp;
import dev.cotenant.spi.ServerSession;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.ListingPager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one caller is told, read over an open {@link ServerSession}: the handshake of the
 * configured era, then {@code tools/list} (following {@code nextCursor}) and the advertised
 * read-only listings, reduced to the snapshot {@link HandshakeComparator} reads, and kept whole as
 * the server wrote it (the start a daemon may answer from the records). Bounded by pages, items and
 * the caller's timeout. Runs on the caller's thread; the session is the caller's to close.
 */
final class CallerSnapshot {
  private final ServerSession session;
  private final Caller caller;
  private final PreflightSettings settings;
  private final SortedMap<String, List<Map<String, Object>>> pages = new TreeMap<>();
  private long deadline;
  private Map<String, Object> meta = Map.of();

  /**
   * What one caller was told.
   *
   * @param snapshot what the comparator reads
   * @param era the era of the handshake completed
   * @param handshake the handshake's answer, whole
   * @param pages each listing asked, the answer to each page in order ({@code result} or {@code error})
   */
  record Answers(Map<String, Object> snapshot, HandshakeEra era, Map<String, Object> handshake,
      SortedMap<String, List<Map<String, Object>>> pages) {}

  private CallerSnapshot(ServerSession session, Caller caller, PreflightSettings settings) {
    this.session = session;
    this.caller = caller;
    this.settings = settings;
  }

  /**
   * Performs the handshake and the listings over {@code session}.
   *
   * @throws SessionException with the short reason the caller could not be asked
   */
  static Answers take(ServerSession session, Caller caller, PreflightSettings settings)
      throws SessionException, InterruptedException {
    return new CallerSnapshot(session, caller, settings).take();
  }

  private Answers take() throws SessionException, InterruptedException {
    // The conversation's time starts with the handshake: the handshake may use all of it, the
    // listings whatever it leaves.
    deadline = System.nanoTime() + settings.timeout().toNanos();
    Map<String, Object> answer = session.handshake(settings.era(), caller.clientInfo(), caller.capabilities(),
        caller.protocolVersion(), settings.timeout());
    HandshakeEra era = session.completedHandshake().orElseThrow(
        () -> new SessionException(SessionException.Kind.ANSWER, "the session reported no completed handshake"));
    Map<String, Object> snapshot = new LinkedHashMap<>();
    if (era == HandshakeEra.DISCOVER) {
      snapshot.put(HandshakeComparator.PROTOCOL_VERSION, Mcp.MODERN_VERSION);
      snapshot.put(HandshakeComparator.SUPPORTED_VERSIONS, answer.get(HandshakeComparator.SUPPORTED_VERSIONS));
    } else {
      copy(answer, snapshot, HandshakeComparator.PROTOCOL_VERSION);
    }
    copy(answer, snapshot, HandshakeComparator.CAPABILITIES);
    copy(answer, snapshot, HandshakeComparator.SERVER_INFO);
    meta = session.eraMeta(caller.clientInfo(), caller.capabilities());
    listings(snapshot);
    return new Answers(snapshot, era, answer, pages);
  }

  private static void copy(Map<String, Object> from, Map<String, Object> to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.get(key));
    }
  }

  /**
   * {@code tools/list} always (it is mandatory in every revision); prompts and resources when
   * advertised, and with resources their templates (recorded whole, not compared).
   */
  private void listings(Map<String, Object> snapshot) throws SessionException, InterruptedException {
    snapshot.put(HandshakeComparator.TOOLS, list("tools/list", "tools"));
    Object caps = snapshot.get(HandshakeComparator.CAPABILITIES);
    if (caps instanceof Map<?, ?>) {
      if (((Map<?, ?>) caps).containsKey("prompts")) {
        snapshot.put(HandshakeComparator.PROMPTS, list("prompts/list", "prompts"));
      }
      if (((Map<?, ?>) caps).containsKey("resources")) {
        snapshot.put(HandshakeComparator.RESOURCES, list("resources/list", "resources"));
        try {
          list("resources/templates/list", "resourceTemplates");
        } catch (SessionException e) {
          // Not compared: a server that cannot list its templates was still measured; its start
          // is recorded without them, so a session asking for them starts its backend.
          pages.remove("resources/templates/list");
        }
      }
    }
  }

  /**
   * Every item of a paginated listing, or a {@code "failed: <code>"} marker when the server
   * answered with an error; each page's answer is kept in {@link #pages}. Bounded by pages and
   * items; a repeated cursor is a loop ({@link ListingPager}).
   */
  private Object list(String method, String field) throws SessionException, InterruptedException {
    ListingPager pager = new ListingPager(method, field, settings.maxListPages(), settings.maxListItems());
    List<Map<String, Object>> answers = new ArrayList<>();
    pages.put(method, answers);
    while (pager.more()) {
      Map<String, Object> params = pager.params();
      if (!meta.isEmpty()) {
        params.put("_meta", meta);
      }
      Map<String, Object> response = JsonRpc.await(session.request(method, params), deadline,
          "no answer to " + method + " in " + JsonRpc.duration(settings.timeout().toMillis()));
      if (response.containsKey("error")) {
        answers.add(Map.of("error", response.get("error")));
        return "failed: " + JsonRpc.errorCode(response);
      }
      answers.add(Map.of("result", response.get("result") == null ? Map.of() : response.get("result")));
      try {
        pager.read(response.get("result"));
      } catch (ListingPager.RefusedPage e) {
        throw new SessionException(e.malformed() ? SessionException.Kind.ANSWER : SessionException.Kind.GARBAGE,
            e.getMessage());
      }
    }
    return pager.items();
  }
}
