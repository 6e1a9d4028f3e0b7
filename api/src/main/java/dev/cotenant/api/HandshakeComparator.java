package dev.cotenant.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The fixed comparator of the pre-flight (docs/preflight.md): given what two different callers were
 * told by the same server, it names every facet a pooled backend would replay differently.
 *
 * <p>Each side is a <b>handshake snapshot</b>, a plain JSON object (maps with string keys,
 * lists, strings, numbers, booleans, {@link Json#NULL}) with these keys:
 *
 * <ul>
 *   <li>{@code protocolVersion}: the negotiated version (a string);
 *   <li>{@code supportedVersions}: optional, the versions a {@code server/discover} answer listed;
 *   <li>{@code capabilities}: the server's capabilities object;
 *   <li>{@code serverInfo}: the server's {@code serverInfo} object;
 *   <li>{@code tools}: every tool {@code tools/list} produced (all pages), absent when it was not
 *       answered, any non-list value when it failed;
 *   <li>{@code prompts}, {@code resources}: the items of {@code prompts/list} and
 *       {@code resources/list}, present only when the server advertised them.
 * </ul>
 *
 * <p>The rules, one per facet:
 *
 * <ul>
 *   <li>{@value #CAPABILITIES}: the SHAPE of the capabilities: which keys exist (at every depth,
 *       {@code experimental} included) and the value of every boolean flag. {@code {"logging":{}}}
 *       is a present key.
 *   <li>{@value #PROTOCOL_VERSION}: the negotiated version verbatim, and the supported versions as
 *       a set.
 *   <li>{@value #SERVER_INFO}: the shape of {@code serverInfo}.
 *   <li>{@value #TOOLS}: tool names as a SET: enumeration order is not a promise a replayed answer
 *       keeps.
 *   <li>{@value #TOOL_ANNOTATIONS}: the {@code annotations} objects as an unordered MULTISET of
 *       canonical shapes, never paired with a tool name (a nameless tool cannot misalign
 *       anything): a differing claim such as {@code readOnlyHint} is detected, a reorder is not a
 *       divergence.
 *   <li>{@value #PROMPTS}: prompt names as a set; {@value #RESOURCES}: resource URIs as a set.
 * </ul>
 *
 * <p>A shape keeps map keys and boolean values; every other leaf (a string such as a build id or
 * a token, a number, {@code null}, a list) collapses to a presence marker, because its value is
 * not part of the contract a pooled backend must keep identical. Shapes are canonical strings
 * (keys sorted) so they can be ordered and counted.
 *
 * <p>Pure: no IO, no clock, inputs are never mutated. The walk is iterative and stops descending
 * at {@link #MAX_DEPTH}, so hostile nesting (even a cyclic in-memory tree) cannot overflow the
 * stack. Thread-safe (stateless).
 */
public final class HandshakeComparator {

  /** Facet: capability shape. */
  public static final String CAPABILITIES = "capabilities";
  /** Facet: negotiated protocol version and supported versions. */
  public static final String PROTOCOL_VERSION = "protocolVersion";
  /** Facet: {@code serverInfo} shape. */
  public static final String SERVER_INFO = "serverInfo";
  /** Facet: tool names as a set. */
  public static final String TOOLS = "tools";
  /** Facet: tool annotations as a multiset of shapes. */
  public static final String TOOL_ANNOTATIONS = "toolAnnotations";
  /** Facet: prompt names as a set. */
  public static final String PROMPTS = "prompts";
  /** Facet: resource URIs as a set. */
  public static final String RESOURCES = "resources";

  /** Every facet, in the order {@link #compare} reports them. */
  public static final List<String> FACETS =
      List.of(CAPABILITIES, PROTOCOL_VERSION, SERVER_INFO, TOOLS, TOOL_ANNOTATIONS, PROMPTS, RESOURCES);

  /** Snapshot key of the versions a {@code server/discover} answer listed. */
  public static final String SUPPORTED_VERSIONS = "supportedVersions";

  /** Maps nested deeper than this are not descended into; they shape as {@link #DEEP}. */
  public static final int MAX_DEPTH = 32;

  /** The shape of any leaf that is not a boolean: "present". */
  static final String PRESENT = "*";
  /** The shape of a map nested deeper than {@link #MAX_DEPTH}. */
  static final String DEEP = "{...}";
  /** The shape of an absent value. */
  static final String ABSENT = "-";

  private HandshakeComparator() {}

  /**
   * Names the facets whose replayed surface differs between two handshake snapshots.
   *
   * @param first the first caller's snapshot
   * @param second the second caller's snapshot
   * @return the divergent facets in {@link #FACETS} order; empty when the handshake replayed
   *     identically
   */
  public static List<String> compare(Map<String, ?> first, Map<String, ?> second) {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(second, "second");
    List<String> out = new ArrayList<>();
    if (!shapeOf(first, CAPABILITIES).equals(shapeOf(second, CAPABILITIES))) {
      out.add(CAPABILITIES);
    }
    if (!versions(first).equals(versions(second))) {
      out.add(PROTOCOL_VERSION);
    }
    if (!shapeOf(first, SERVER_INFO).equals(shapeOf(second, SERVER_INFO))) {
      out.add(SERVER_INFO);
    }
    if (!keySet(first.get(TOOLS), "name").equals(keySet(second.get(TOOLS), "name"))) {
      out.add(TOOLS);
    }
    if (!annotationShapes(first.get(TOOLS)).equals(annotationShapes(second.get(TOOLS)))) {
      out.add(TOOL_ANNOTATIONS);
    }
    if (!keySet(first.get(PROMPTS), "name").equals(keySet(second.get(PROMPTS), "name"))) {
      out.add(PROMPTS);
    }
    if (!keySet(first.get(RESOURCES), "uri").equals(keySet(second.get(RESOURCES), "uri"))) {
      out.add(RESOURCES);
    }
    return Collections.unmodifiableList(out);
  }

  private static String shapeOf(Map<String, ?> snapshot, String key) {
    return snapshot.containsKey(key) ? shape(snapshot.get(key)) : ABSENT;
  }

  /** The negotiated version verbatim plus the supported versions as a set. */
  private static List<Object> versions(Map<String, ?> snapshot) {
    Object negotiated = snapshot.get(PROTOCOL_VERSION);
    String v;
    if (negotiated instanceof String) {
      v = "s:" + negotiated;
    } else {
      v = snapshot.containsKey(PROTOCOL_VERSION) ? "x:" + shape(negotiated) : ABSENT;
    }
    Object supported = snapshot.get(SUPPORTED_VERSIONS);
    Set<String> set = new TreeSet<>();
    if (supported instanceof List<?>) {
      for (Object o : (List<?>) supported) {
        set.add(o instanceof String ? "s:" + o : "x:" + shape(o));
      }
    } else if (snapshot.containsKey(SUPPORTED_VERSIONS)) {
      set.add("x:" + shape(supported));
    }
    return List.of(v, set);
  }

  /**
   * A listing as the set of one identifying string field of its items ({@code name},
   * {@code uri}). An absent listing, a failed listing (a non-list value) and a list are three
   * different answers; an item without a string key contributes a marker so a nameless entry is
   * still seen, but never paired with anything.
   */
  private static Object keySet(Object listing, String field) {
    if (listing == null) {
      return ABSENT;
    }
    if (!(listing instanceof List<?>)) {
      return "failed";
    }
    Set<String> names = new TreeSet<>();
    for (Object item : (List<?>) listing) {
      Object name = item instanceof Map<?, ?> ? ((Map<?, ?>) item).get(field) : null;
      names.add(name instanceof String ? "s:" + name : "x");
    }
    return names;
  }

  /** The annotations objects of a tool listing as a sorted multiset of canonical shapes. */
  private static Object annotationShapes(Object listing) {
    if (listing == null) {
      return ABSENT;
    }
    if (!(listing instanceof List<?>)) {
      return "failed";
    }
    Map<String, Integer> counts = new TreeMap<>();
    for (Object item : (List<?>) listing) {
      if (item instanceof Map<?, ?>) {
        Object annotations = ((Map<?, ?>) item).get("annotations");
        if (annotations instanceof Map<?, ?>) {
          counts.merge(shape(annotations), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  /**
   * The canonical shape of a JSON value: a map becomes {@code {"key":shape,...}} with keys sorted,
   * a boolean stays {@code true}/{@code false}, every other leaf becomes {@value #PRESENT}, and a
   * map below {@link #MAX_DEPTH} becomes {@value #DEEP}. Iterative; never recurses.
   *
   * @param node a plain JSON value
   * @return the canonical shape string
   */
  public static String shape(Object node) {
    StringBuilder sb = new StringBuilder();
    Deque<Object> work = new ArrayDeque<>();
    work.push(new Frame(node, 0));
    while (!work.isEmpty()) {
      Object item = work.pop();
      if (item instanceof String) {
        sb.append((String) item);
        continue;
      }
      Frame frame = (Frame) item;
      Object value = frame.value;
      if (value instanceof Boolean) {
        sb.append(value);
      } else if (value instanceof Map<?, ?>) {
        if (frame.depth >= MAX_DEPTH) {
          sb.append(DEEP);
          continue;
        }
        TreeMap<String, Object> sorted = new TreeMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          sorted.put(String.valueOf(e.getKey()), e.getValue() == null ? Json.NULL : e.getValue());
        }
        // Pushed in reverse so they pop in order: "{", key1, value1, ",", key2, value2, "}".
        work.push("}");
        List<Map.Entry<String, Object>> entries = new ArrayList<>(sorted.entrySet());
        for (int i = entries.size() - 1; i >= 0; i--) {
          Map.Entry<String, Object> e = entries.get(i);
          work.push(new Frame(e.getValue(), frame.depth + 1));
          work.push(quote(e.getKey()) + ":");
          if (i > 0) {
            work.push(",");
          }
        }
        sb.append('{');
      } else {
        sb.append(PRESENT);
      }
    }
    return sb.toString();
  }

  private static String quote(String key) {
    StringBuilder sb = new StringBuilder(key.length() + 2).append('"');
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.append('"').toString();
  }

  private static final class Frame {
    final Object value;
    final int depth;

    Frame(Object value, int depth) {
      this.value = value;
      this.depth = depth;
    }
  }
}
