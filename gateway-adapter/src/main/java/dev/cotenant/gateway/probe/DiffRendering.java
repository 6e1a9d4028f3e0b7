package dev.cotenant.gateway.probe;

import static dev.cotenant.gateway.probe.AnswerDiff.CONTEXT;
import static dev.cotenant.gateway.probe.AnswerDiff.EXCERPT;
import static dev.cotenant.gateway.probe.AnswerDiff.PART_EXCERPT;
import static dev.cotenant.gateway.probe.AnswerValues.norm;

import dev.cotenant.gateway.probe.AnswerValues.Kind;
import dev.cotenant.api.LogSafe;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How {@link AnswerDiff} shows what it found: a path's members and elements, and excerpts of
 * values and texts, escaped for one line and cut to their bounds. Pure, static and thread-safe.
 */
final class DiffRendering {
  /** The longest key shown as {@code .name} in a path; a longer one is quoted. */
  private static final int KEY_MAX = 40;

  private DiffRendering() {}

  /** A member of an object in a path: {@code .name}, or {@code ["other key"]}. */
  static String member(Object key) {
    String k = String.valueOf(key);
    boolean plain = !k.isEmpty() && k.length() <= KEY_MAX;
    for (int i = 0; plain && i < k.length(); i++) {
      char c = k.charAt(i);
      plain = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
    }
    return plain ? "." + k : "[\"" + LogSafe.escape(k, KEY_MAX).replace("\"", "\\\"") + "\"]";
  }

  static String elements(int n) {
    return n == 1 ? "1 element" : n + " elements";
  }

  static String quote(String text) {
    return "\"" + LogSafe.escape(text, PART_EXCERPT) + "\"";
  }

  /** Up to {@value #CONTEXT} characters on each side of character {@code at}, {@code …} marking a cut. */
  static String charExcerpt(String text, int at) {
    int from = Math.max(0, at - CONTEXT);
    int to = Math.min(text.length(), at + CONTEXT + 1);
    if (from > 0 && Character.isLowSurrogate(text.charAt(from))) {
      from--;
    }
    if (to < text.length() && Character.isLowSurrogate(text.charAt(to))) {
      to++;
    }
    if (from == to) {
      return "(empty text)";
    }
    return (from > 0 ? "…" : "") + LogSafe.escape(text.substring(from, to), EXCERPT) + (to < text.length() ? "…" : "");
  }

  /** A value as compact JSON, escaped for one line and cut at {@code max} characters. */
  static String render(Object value, int max) {
    StringBuilder sb = new StringBuilder();
    render(value, sb, max);
    return LogSafe.escape(sb.length() > max + 1 ? sb.substring(0, max + 1) : sb.toString(), max);
  }

  /**
   * Appends {@code value} until {@code sb} is longer than {@code max}. Each level appends a
   * character before it descends, so the recursion is no deeper than {@code max}.
   */
  static void render(@Nullable Object value, StringBuilder sb, int max) {
    if (sb.length() > max) {
      return;
    }
    Object v = norm(value);
    switch (Kind.of(v)) {
      case OBJECT: {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
          if (sb.length() > max) {
            return;
          }
          String key = String.valueOf(e.getKey());
          sb.append(first ? "" : ",").append('"').append(key, 0, Math.min(key.length(), max + 1)).append("\":");
          first = false;
          render(e.getValue(), sb, max);
        }
        sb.append('}');
        break;
      }
      case ARRAY: {
        sb.append('[');
        boolean first = true;
        for (Object o : (List<?>) v) {
          if (sb.length() > max) {
            return;
          }
          sb.append(first ? "" : ",");
          first = false;
          render(o, sb, max);
        }
        sb.append(']');
        break;
      }
      case STRING: {
        String s = (String) v;
        sb.append('"').append(s, 0, Math.min(s.length(), max + 1)).append('"');
        break;
      }
      default:
        sb.append(v);
    }
  }
}
