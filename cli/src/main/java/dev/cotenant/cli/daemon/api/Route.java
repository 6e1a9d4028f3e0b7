package dev.cotenant.cli.daemon.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One route of the API: a method, a path template within {@value ApiHandler#PATH}
 * ({@code {name}} matches one non-empty segment) and what it does. Immutable.
 */
record Route(String method, String path, Action action) {
  /** What a route does, on the handler's route groups. */
  @FunctionalInterface
  interface Action {
    Answer run(ApiHandler api, Exchange x) throws Exception;
  }

  /** The path parameters when {@code segments} match the template, else empty. */
  Optional<Map<String, String>> match(List<String> segments) {
    List<String> template = segments(path);
    if (template.size() != segments.size()) {
      return Optional.empty();
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < template.size(); i++) {
      String t = template.get(i);
      String s = segments.get(i);
      if (t.startsWith("{") && t.endsWith("}")) {
        if (s.isEmpty()) {
          return Optional.empty();
        }
        params.put(t.substring(1, t.length() - 1), s);
      } else if (!t.equals(s)) {
        return Optional.empty();
      }
    }
    return Optional.of(params);
  }

  /** The segments of {@code path}, without the empty one before its leading {@code /}. */
  static List<String> segments(String path) {
    List<String> out = new ArrayList<>(Arrays.asList(path.split("/", -1)));
    if (!out.isEmpty() && out.get(0).isEmpty()) {
      out.remove(0);
    }
    return out;
  }
}
