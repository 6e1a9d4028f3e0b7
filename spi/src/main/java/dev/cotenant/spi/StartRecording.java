package dev.cotenant.spi;

import dev.cotenant.api.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a server answers at its start, the same for every caller that asked: its
 * {@code initialize} result and the pages of its listings, recorded by the pre-flight when its
 * callers (who differ in client information, declared capabilities and the protocol version they
 * ask for) were answered exactly alike and the server sent nothing of its own before the listings
 * ended. A daemon answers a session's handshake and listings from it, and starts the session's
 * backend only at its first other message (docs/pool.md, "Deferred backends").
 *
 * <p>What it covers: a client asking one of the {@link #versions()} a caller asked, declaring no
 * capability outside {@link #clientCapabilities()} (the capabilities the callers varied). The
 * client's own {@code clientInfo} is not part of the key: the callers named themselves
 * differently and were answered alike.
 *
 * @param versions each protocol version a caller asked for in {@code initialize}, with the version
 *     the server negotiated for it
 * @param clientCapabilities the capability paths some caller declared ({@link #capabilityPaths}):
 *     {@code roots}, {@code sampling}, {@code elicitation}, {@code extensions/<id>},
 *     {@code experimental/<id>}; sorted
 * @param initializeResult the {@code initialize} result, without its {@code protocolVersion}
 * @param listings for each listing method asked ({@code tools/list}, {@code prompts/list},
 *     {@code resources/list}, {@code resources/templates/list}), the answer to each page in order:
 *     an object holding either {@code result} or {@code error}, as the server wrote it
 */
public record StartRecording(
    SortedMap<String, String> versions,
    List<String> clientCapabilities,
    Map<String, Object> initializeResult,
    SortedMap<String, List<Map<String, Object>>> listings) {
  /**
   * The deepest nesting a recording may have (its listings' answers included), so that a record
   * store keeping it within its own bounds never refuses the file it is in.
   */
  public static final int MAX_DEPTH = 40;

  /** The capabilities whose members name extensions, each a path of its own ({@code extensions/<id>}). */
  private static final List<String> NAMED_MEMBERS = List.of("extensions", "experimental");

  /** Checks and freezes the parts. */
  public StartRecording {
    versions = Collections.unmodifiableSortedMap(new TreeMap<>(Objects.requireNonNull(versions, "versions")));
    if (versions.isEmpty()) {
      throw new IllegalArgumentException("a start recording must say which protocol versions it covers");
    }
    clientCapabilities = List.copyOf(new TreeSet<>(Objects.requireNonNull(clientCapabilities, "clientCapabilities")));
    initializeResult = Json.freezeMap(Objects.requireNonNull(initializeResult, "initializeResult"));
    if (initializeResult.containsKey("protocolVersion")) {
      throw new IllegalArgumentException("a start recording keeps the initialize result without its protocolVersion");
    }
    SortedMap<String, List<Map<String, Object>>> pages = new TreeMap<>();
    for (Map.Entry<String, List<Map<String, Object>>> e : Objects.requireNonNull(listings, "listings").entrySet()) {
      List<Map<String, Object>> answers = new ArrayList<>();
      for (Map<String, Object> a : e.getValue()) {
        if (a.containsKey("result") == a.containsKey("error")) {
          throw new IllegalArgumentException("a recorded page of " + e.getKey() + " holds either a result or an error");
        }
        answers.add(Json.freezeMap(a));
      }
      if (answers.isEmpty()) {
        throw new IllegalArgumentException("a recorded listing of " + e.getKey() + " has at least one page");
      }
      pages.put(e.getKey(), List.copyOf(answers));
    }
    listings = Collections.unmodifiableSortedMap(pages);
  }

  /** The version the server negotiated for a client asking {@code requested}; empty when no caller asked it. */
  public Optional<String> negotiated(String requested) {
    return Optional.ofNullable(versions.get(requested));
  }

  /**
   * The paths of what {@code capabilities} declares: each member's name, and for
   * {@code extensions} and {@code experimental} each of their members as
   * {@code extensions/<id>}; sorted.
   */
  public static List<String> capabilityPaths(Map<String, Object> capabilities) {
    TreeSet<String> paths = new TreeSet<>();
    for (Map.Entry<String, Object> e : capabilities.entrySet()) {
      if (NAMED_MEMBERS.contains(e.getKey()) && e.getValue() instanceof Map<?, ?> m) {
        for (Object id : m.keySet()) {
          paths.add(e.getKey() + "/" + id);
        }
      } else {
        paths.add(e.getKey());
      }
    }
    return List.copyOf(paths);
  }

  /**
   * The capability paths a client declaring {@code capabilities} declares beyond what the
   * recording's callers varied; empty when the recording covers such a client.
   */
  public List<String> uncovered(Map<String, Object> capabilities) {
    List<String> out = new ArrayList<>();
    for (String p : capabilityPaths(capabilities)) {
      if (!clientCapabilities.contains(p)) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * The {@code initialize} result a client asking {@code requested} is answered: the recorded one
   * with the version negotiated for it; empty when no caller asked that version.
   */
  public Optional<Map<String, Object>> initializeResult(String requested) {
    return negotiated(requested).map(v -> {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("protocolVersion", v);
      r.putAll(initializeResult);
      return r;
    });
  }

  /**
   * The recorded answer to {@code method} asked with {@code cursor}: the first page when
   * {@code cursor} is null, otherwise the page after the one whose {@code nextCursor} it is; empty
   * when the method was not recorded or the cursor was never handed out.
   */
  public Optional<Map<String, Object>> page(String method, Object cursor) {
    List<Map<String, Object>> pages = listings.get(method);
    if (pages == null) {
      return Optional.empty();
    }
    if (cursor == null) {
      return Optional.of(pages.get(0));
    }
    for (int i = 0; i + 1 < pages.size(); i++) {
      if (pages.get(i).get("result") instanceof Map<?, ?> r && cursor.equals(r.get("nextCursor"))) {
        return Optional.of(pages.get(i + 1));
      }
    }
    return Optional.empty();
  }

  /**
   * The recording as plain JSON values, as record stores keep it:
   * {@code {"versions":{...},"clientCapabilities":[...],"initialize":{...},"listings":{METHOD:[...]}}}.
   */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("versions", new LinkedHashMap<>(versions));
    m.put("clientCapabilities", clientCapabilities);
    m.put("initialize", initializeResult);
    m.put("listings", new LinkedHashMap<>(listings));
    return m;
  }

  /**
   * Reads what {@link #toJson} wrote.
   *
   * @throws IllegalArgumentException naming the member that is missing or not of its type
   */
  @SuppressWarnings("unchecked")
  public static StartRecording fromJson(Object json) {
    if (!(json instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("a start recording is a JSON object");
    }
    if (!(m.get("versions") instanceof Map<?, ?> v) || v.isEmpty()) {
      throw new IllegalArgumentException("its versions are not an object of versions");
    }
    SortedMap<String, String> versions = new TreeMap<>();
    for (Map.Entry<?, ?> e : v.entrySet()) {
      if (!(e.getValue() instanceof String answered)) {
        throw new IllegalArgumentException("its version " + e.getKey() + " is not answered with a version");
      }
      versions.put(String.valueOf(e.getKey()), answered);
    }
    if (!(m.get("clientCapabilities") instanceof List<?> caps) || caps.stream().anyMatch(c -> !(c instanceof String))) {
      throw new IllegalArgumentException("its clientCapabilities are not a list of names");
    }
    if (!(m.get("initialize") instanceof Map<?, ?> init)) {
      throw new IllegalArgumentException("its initialize is not an object");
    }
    if (!(m.get("listings") instanceof Map<?, ?> l)) {
      throw new IllegalArgumentException("its listings are not an object");
    }
    SortedMap<String, List<Map<String, Object>>> listings = new TreeMap<>();
    for (Map.Entry<?, ?> e : l.entrySet()) {
      if (!(e.getValue() instanceof List<?> pages) || pages.stream().anyMatch(p -> !(p instanceof Map<?, ?>))) {
        throw new IllegalArgumentException("its listing " + e.getKey() + " is not a list of answers");
      }
      listings.put(String.valueOf(e.getKey()), (List<Map<String, Object>>) pages);
    }
    return new StartRecording(versions, (List<String>) caps, (Map<String, Object>) init, listings);
  }

  /**
   * Whether two listings said the same, cursors aside (a process may draw its cursors afresh):
   * page for page, the same error or the same result but its {@code nextCursor}, as JSON values
   * ({@link Json#same}).
   */
  public static boolean sameListing(List<Map<String, Object>> a, List<Map<String, Object>> b) {
    return Json.same(withoutCursors(a), withoutCursors(b));
  }

  /**
   * What a live server answered differently from this recording, for a client asking
   * {@code requested}: {@code "initialize"} when its {@code initialize} result differs (its version
   * included), and each listing method whose pages differ ({@link #sameListing}); a listing not in
   * {@code live} is not compared. Empty when everything compared is the same.
   */
  public List<String> differences(String requested, Map<String, Object> liveInitialize,
      Map<String, List<Map<String, Object>>> live) {
    List<String> out = new ArrayList<>();
    if (!initializeResult(requested).map(r -> Json.same(r, liveInitialize)).orElse(false)) {
      out.add("initialize");
    }
    for (Map.Entry<String, List<Map<String, Object>>> e : listings.entrySet()) {
      List<Map<String, Object>> now = live.get(e.getKey());
      if (now != null && !sameListing(e.getValue(), now)) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  private static List<Object> withoutCursors(List<Map<String, Object>> pages) {
    List<Object> out = new ArrayList<>();
    for (Map<String, Object> page : pages) {
      if (page.get("result") instanceof Map<?, ?> r) {
        Map<Object, Object> copy = new LinkedHashMap<>(r);
        copy.remove("nextCursor");
        out.add(copy);
      } else {
        out.add(page);
      }
    }
    return out;
  }
}
