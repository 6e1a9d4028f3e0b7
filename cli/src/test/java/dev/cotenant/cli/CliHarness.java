package dev.cotenant.cli;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.PreflightResult;
import dev.cotenant.spi.PreflightTransport;
import dev.cotenant.spi.PreflightTransportProvider;
import dev.cotenant.spi.ProviderContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the CLI in-process in a temporary world: a working directory, a home, a records
 * directory, an environment with an empty {@code PATH}, and a counting fake pre-flight transport
 * (the real one is never used here).
 */
final class CliHarness {
  private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();
  static final HandshakeFacts FACTS =
      HandshakeFacts.fromJson("2025-11-25", Map.of("tools", Map.of()), Map.of("name", "fake", "version", "1"), List.of());

  final Path cwd;
  final Path home;
  final Path records;
  final Map<String, String> env = new HashMap<>(Map.of("PATH", ""));
  final FakeTransport transport = new FakeTransport();
  /** Further adjustments to the runtime, after the fake pre-flight transport is installed. */
  java.util.function.UnaryOperator<dev.cotenant.gateway.Cotenant.Builder> runtime = java.util.function.UnaryOperator.identity();
  /** False to use the pre-flight transport the runtime selects instead of the fake. */
  boolean fakePreflight = true;
  /** True to run as on a terminal (the progress line redraws in place). */
  boolean interactive;
  /** Standard error of the run in progress, readable while it runs. */
  final StringWriter liveErr = new StringWriter();

  CliHarness(Path tmp) throws IOException {
    this.cwd = Files.createDirectories(tmp.resolve("work"));
    this.home = Files.createDirectories(tmp.resolve("home"));
    this.records = tmp.resolve("records");
  }

  /** What one run printed and returned. */
  record Result(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  /** Runs {@code args} with the records directory given explicitly. */
  Result run(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--records-dir";
    all[args.length + 1] = records.toString();
    return runRaw(all);
  }

  /** Runs {@code args} exactly as given. */
  Result runRaw(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = liveErr;
    err.getBuffer().setLength(0);
    CliContext context =
        new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), env, cwd, home,
            b -> runtime.apply(fakePreflight ? b.preflightTransport(transport) : b), interactive);
    int code = new Cli(context).run(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** Writes {@code text} to {@code name} in the working directory. */
  Path write(String name, String text) throws IOException {
    Path p = cwd.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  /**
   * Writes {@code name} in the working directory: an {@code mcpServers} map with a scripted
   * {@code ProbeTestServer} per mode, named after its mode, then the entries of {@code more}.
   *
   * @return the text written
   */
  String writeProbeServers(String name, List<String> modes, Map<String, Object> more) throws IOException {
    Map<String, Object> servers = new java.util.LinkedHashMap<>();
    for (String mode : modes) {
      servers.put(mode, Map.of("command", dev.cotenant.gateway.probe.ProbeHarness.JAVA,
          "args", dev.cotenant.gateway.probe.ProbeHarness.javaArgs(mode)));
    }
    servers.putAll(more);
    String text = JSON.writeValueAsString(Map.of("mcpServers", servers));
    write(name, text);
    return text;
  }

  /** The row of server {@code name} that {@code assess CONFIG --json} prints. */
  tools.jackson.databind.JsonNode row(String config, String name) {
    Result r = run("assess", "--json", config);
    if (r.code() != 0) {
      throw new AssertionError("assess exited " + r.code() + ": " + r.err());
    }
    for (tools.jackson.databind.JsonNode s : JSON.readTree(r.out()).path("servers")) {
      if (s.path("name").stringValue().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no row " + name + " in " + r.out());
  }

  /** A row's reasons, each as {@code code(detail)}. */
  static List<String> reasons(tools.jackson.databind.JsonNode row) {
    List<String> out = new java.util.ArrayList<>();
    row.path("reasons").forEach(r -> out.add(r.path("code").stringValue() + "(" + r.path("detail").stringValue() + ")"));
    return out;
  }

  /** A pre-flight transport that counts its creations and the servers it was asked about. */
  static final class FakeTransport implements PreflightTransportProvider, PreflightTransport {
    final AtomicInteger created = new AtomicInteger();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final Map<String, PreflightResult> answers = new ConcurrentHashMap<>();
    /** The command each server was launched with, as the pre-flight received it. */
    final Map<String, String> commands = new ConcurrentHashMap<>();
    /** A pre-flight of a server named here waits for its latch before answering. */
    final Map<String, java.util.concurrent.CountDownLatch> gates = new ConcurrentHashMap<>();

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public PreflightTransport create(ProviderContext context) {
      created.incrementAndGet();
      return this;
    }

    @Override
    public PreflightResult preflight(ServerDescription server) {
      calls.computeIfAbsent(server.name(), k -> new AtomicInteger()).incrementAndGet();
      commands.put(server.name(), server.command());
      java.util.concurrent.CountDownLatch gate = gates.get(server.name());
      if (gate != null) {
        try {
          gate.await(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return answers.getOrDefault(server.name(), PreflightResult.ran(List.of(), FACTS));
    }

    int calls(String name) {
      AtomicInteger n = calls.get(name);
      return n == null ? 0 : n.get();
    }

    int total() {
      return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }
  }
}
