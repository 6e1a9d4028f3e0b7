package dev.cotenant.gateway.probe;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.RpcMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a whole-surface probe run learns about its tools before the phases, each on a backend of
 * its own so that no phase's backend is touched: which of a tool's candidate argument sets works
 * (with directories, ids and names other tools answered; {@link #calibrate}), and whether the
 * tools annotated read-only keep what they are sent ({@link #checkReadOnly}). One per run, on the
 * run's thread.
 */
final class Calibration {
  /** Directories taken from other tools' answers at most. */
  static final int MAX_RETURNED = 2;

  /** Argument sets made from other tools' answers tried per tool at most. */
  static final int MAX_RETURNED_TRIES = 4;

  /** An absolute path in an answer's JSON text. */
  private static final Pattern ABSOLUTE_PATH =
      Pattern.compile("(?<![\\w.~-])(/[A-Za-z0-9._@%+=,~-]+(?:/[A-Za-z0-9._@%+=,~-]+)*)");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SurfaceRun run;

  Calibration(SurfaceRun run) {
    this.run = run;
  }

  /**
   * For each tool whose arguments came from its schema and that has other candidates: on a
   * backend of its own (so no phase's backend is touched), calls it as caller A with each
   * candidate in turn until one answers without a JSON-RPC error or {@code isError}, and keeps
   * that one for every phase. Writers first, as in the rounds. A tool none of whose candidates
   * works keeps its first, and ends not proven as before.
   */
  void calibrate() throws SessionException, InterruptedException {
    boolean paths = run.called.stream().anyMatch(p -> !pathKeys(p).isEmpty());
    boolean ids = run.called.stream().anyMatch(p -> !idKeys(p).isEmpty());
    if (run.called.stream().allMatch(p -> p.alternatives().isEmpty()) && !paths && !ids) {
      return;
    }
    ProbeBackend backend = run.open(false, "probe-calibration", run.a);
    ProbeLane lane = new ProbeLane(run.a, backend);
    List<PlannedCall> chosen = new ArrayList<>();
    // What the calls that worked answered, in order: ids and names a later tool may take.
    List<Object> answered = new ArrayList<>();
    try {
      List<String> returned = paths ? returnedDirectories(lane) : List.of();
      for (PlannedCall p : run.called) {
        // Values other tools returned: a directory a read-only tool named, for a path argument.
        List<ArgumentTemplate> fromAnswers = new ArrayList<>();
        for (String dir : returned) {
          for (String key : pathKeys(p)) {
            fromAnswers.add(p.arguments().with(key, dir));
            fromAnswers.add(p.arguments().with(key, dir + "/" + ArgumentTemplate.MARKER + ".txt"));
          }
        }
        // Ids and names an earlier tool answered, for an argument named after one.
        List<ArgumentTemplate> fromIds = new ArrayList<>();
        for (String key : idKeys(p)) {
          for (String value : returnedValues(answered, key, backend)) {
            fromIds.add(p.arguments().with(key, value));
          }
        }
        if (p.alternatives().isEmpty() && fromAnswers.isEmpty() && fromIds.isEmpty() && !ids) {
          chosen.add(p);
          continue;
        }
        List<ArgumentTemplate> tries = new ArrayList<>();
        tries.add(p.arguments());
        tries.addAll(p.alternatives());
        fromAnswers.stream().filter(t -> !tries.contains(t)).limit(MAX_RETURNED_TRIES).forEach(tries::add);
        fromIds.stream().filter(t -> !tries.contains(t)).limit(MAX_RETURNED_TRIES).forEach(tries::add);
        PlannedCall keep = p;
        for (int i = 0; i < tries.size(); i++) {
          ArgumentTemplate t = tries.get(i);
          Optional<RpcMessage.Response> answer = run.callOnce(lane, new PlannedCall(p.name(), t, p.source(), p.readOnly()), 1);
          if (answer.isEmpty()) {
            break;
          }
          RpcMessage.Response got = answer.get();
          if (!ProbeAnswers.failed(got)) {
            answered.add(got.result());
            if (i > 0) {
              keep = new PlannedCall(p.name(), t, "schema, candidate " + (i + 1) + " of " + tries.size()
                  + " (the first that answered without an error) " + t, p.readOnly());
            }
            break;
          }
        }
        chosen.add(keep);
      }
    } finally {
      backend.close();
    }
    run.called = List.copyOf(chosen);
  }

  /**
   * Whether the tools annotated {@code readOnlyHint: true} keep what their calls send: on a
   * backend of its own, only they are called, each with a marker of its own, then each again;
   * a marker of an earlier call that shows in a later answer (the tool's own or another
   * reader's) was kept by the tool it was sent to, since no other tool was called. Such a tool
   * is noted ({@link SurfaceReport#annotationNotes()}) and is called with the writers from then
   * on, so that what it keeps is there when the other caller reads. The per-call scratch
   * directories the probe made itself are not counted.
   */
  void checkReadOnly() throws SessionException, InterruptedException {
    List<PlannedCall> readers = run.called.stream().filter(PlannedCall::readOnly).toList();
    if (readers.isEmpty()) {
      return;
    }
    int n = readers.size();
    String nonce = ProbeCaller.hex(4);
    ProbeCaller probe = ProbeCaller.of("A", "alpha-readonly", "cotenant-probe-r-" + nonce, nonce,
        Stream.generate(() -> ProbeCaller.hex(4)).limit(2L * n).toList());
    ProbeBackend backend = run.open(false, "probe-annotations", probe);
    ProbeLane lane = new ProbeLane(probe, backend);
    // Per reader called in the first pass: its marker, and the scratch directory the probe made for the call.
    Map<String, String[]> sent = new LinkedHashMap<>();
    try {
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
          PlannedCall r = readers.get(i);
          int round = pass * n + i + 1;
          Optional<RpcMessage.Response> answer = run.callOnce(lane, r, round);
          if (answer.isEmpty()) {
            return;
          }
          String text = StatelessnessProbe.toJson(answer.get().json());
          for (Map.Entry<String, String[]> e : sent.entrySet()) {
            String[] m = e.getValue();
            if (!run.contradicted.containsKey(e.getKey()) && text.replace(m[1], "").contains(m[0])) {
              run.contradicted.put(e.getKey(), LogSafe.escape(e.getKey(), 80) + " is annotated readOnlyHint: true, but the marker"
                  + " of its earlier call came back in " + (e.getKey().equals(r.name()) ? "its own" : LogSafe.escape(r.name(), 80)
                  + "'s") + " later answer, with no other tool called: it keeps what it is sent, and was called with the"
                  + " writers");
            }
          }
          if (pass == 0) {
            sent.put(r.name(), new String[] {probe.marker(round), backend.scratch.resolve(probe.marker(round)).toString()});
          }
        }
      }
    } finally {
      backend.close();
    }
    if (!run.contradicted.isEmpty()) {
      List<PlannedCall> reordered = new ArrayList<>(run.called.stream().filter(p -> !p.readOnly() || run.contradicted.containsKey(p.name()))
          .toList());
      reordered.addAll(run.called.stream().filter(p -> p.readOnly() && !run.contradicted.containsKey(p.name())).toList());
      run.called = List.copyOf(reordered);
    }
  }

  /**
   * The top-level string arguments of a schema-synthesised call whose names mean an id or a
   * name ({@code id}, {@code taskId}, {@code task_id}, {@code name}, {@code entityName}, {@code
   * key}), other than paths.
   */
  private List<String> idKeys(PlannedCall p) {
    if (!p.source().startsWith("schema")) {
      return List.of();
    }
    List<String> paths = pathKeys(p);
    return p.arguments().stringKeys().stream().filter(k -> !paths.contains(k)).filter(k -> {
      String n = SchemaStrings.plainName(k);
      return n.endsWith("id") || n.endsWith("name") || n.equals("key");
    }).toList();
  }

  /**
   * Up to {@value #MAX_RETURNED} values that {@code answers} give a field of the same name as
   * {@code key} (ignoring case, {@code _} and {@code -}), or a field {@code id} or {@code name}
   * for a key ending so: in the structured content, and in a text content that is JSON. The
   * caller's own marker and workspace value in a value become their placeholders, so each
   * caller sends its own in every phase; a value holding a brace, a line break or the scratch
   * directory, or longer than 200 characters, is not used.
   */
  private List<String> returnedValues(List<Object> answers, String key, ProbeBackend backend) {
    String k = SchemaStrings.plainName(key);
    List<String> out = new ArrayList<>();
    for (Object answer : answers) {
      List<Object> roots = new ArrayList<>();
      if (answer instanceof Map<?, ?>) {
        Map<?, ?> result = (Map<?, ?>) answer;
        if (result.get("structuredContent") != null) {
          roots.add(result.get("structuredContent"));
        }
        if (result.get("content") instanceof List<?>) {
          for (Object c : (List<?>) result.get("content")) {
            if (c instanceof Map<?, ?> && ((Map<?, ?>) c).get("text") instanceof String) {
              String text = ((String) ((Map<?, ?>) c).get("text")).strip();
              if ((text.startsWith("{") || text.startsWith("[")) && text.length() <= 1_000_000) {
                try {
                  roots.add(JSON.readValue(text, Object.class));
                } catch (RuntimeException e) {
                  // not JSON: nothing to take from it
                }
              }
            }
          }
        }
      }
      for (Object root : roots) {
        fieldValues(root, k, out, 0);
      }
    }
    List<String> usable = new ArrayList<>();
    for (String v : out) {
      String t = v;
      for (int round = 1; round <= run.rounds; round++) {
        t = t.replace(run.a.marker(round), ArgumentTemplate.MARKER).replace(run.a.workspace(round), ArgumentTemplate.WORKSPACE);
      }
      String placeholders = t.replace(ArgumentTemplate.MARKER, "").replace(ArgumentTemplate.WORKSPACE, "");
      if (!placeholders.contains("{") && !placeholders.contains("}") && !t.contains("\n") && t.length() <= 200
          && !t.contains(backend.scratch.toString()) && !t.isBlank() && !usable.contains(t)) {
        usable.add(t);
      }
      if (usable.size() >= MAX_RETURNED) {
        break;
      }
    }
    return usable;
  }

  private void fieldValues(@Nullable Object value, String key, List<String> out, int depth) {
    if (depth > 16 || out.size() >= 64) {
      return;
    }
    if (value instanceof Map<?, ?>) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        String field = SchemaStrings.plainName(String.valueOf(e.getKey()));
        boolean named = field.equals(key) || (key.endsWith("id") && field.equals("id"))
            || (key.endsWith("name") && field.equals("name"));
        Object v = e.getValue();
        if (named && (v instanceof String || v instanceof Integer || v instanceof Long
            || v instanceof java.math.BigInteger)) {
          out.add(String.valueOf(v));
        } else {
          fieldValues(v, key, out, depth + 1);
        }
      }
    } else if (value instanceof List<?>) {
      for (Object v : (List<?>) value) {
        fieldValues(v, key, out, depth + 1);
      }
    }
  }

  /** The top-level string arguments of a schema-synthesised call whose names mean a path. */
  private List<String> pathKeys(PlannedCall p) {
    if (!p.source().startsWith("schema")) {
      return List.of();
    }
    return p.arguments().stringKeys().stream().filter(k -> SchemaStrings.pathFor(k).isPresent()).toList();
  }

  /**
   * Absolute directories the answers of the read-only tools that take no arguments name (an
   * allowed directory, a root), at most {@value #MAX_RETURNED}: each tool called once, as
   * caller A, on the calibration backend.
   */
  private List<String> returnedDirectories(ProbeLane lane) throws SessionException, InterruptedException {
    List<String> out = new ArrayList<>();
    for (PlannedCall p : run.called) {
      if (!p.readOnly() || !p.arguments().equals(ArgumentTemplate.empty()) || out.size() >= MAX_RETURNED) {
        continue;
      }
      Optional<RpcMessage.Response> answer = run.callOnce(lane, p, 1);
      if (answer.isEmpty()) {
        continue;
      }
      Matcher m = ABSOLUTE_PATH.matcher(String.join("\n", strings(answer.get().result())));
      while (m.find() && out.size() < MAX_RETURNED) {
        String dir = m.group(1).replaceAll("/+$", "");
        if (!dir.isEmpty() && !out.contains(dir) && Files.isDirectory(Path.of(dir)) && !dir.equals("/")
            && Stream.of("/usr", "/etc", "/proc", "/sys", "/dev", "/bin", "/lib").noneMatch(dir::startsWith)) {
          out.add(dir);
        }
      }
    }
    return out;
  }

  /** Every string value in {@code value}, at any depth. */
  private List<String> strings(@Nullable Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof String) {
      out.add((String) value);
    } else if (value instanceof Map<?, ?>) {
      ((Map<?, ?>) value).values().forEach(v -> out.addAll(strings(v)));
    } else if (value instanceof List<?>) {
      ((List<?>) value).forEach(v -> out.addAll(strings(v)));
    }
    return out;
  }
}
