package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.cli.route.NativeShim;
import dev.cotenant.testkit.process.ChecksProcessLeaks;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The native shim ({@code cotenant-shim}, from the packaged jar) with a real daemon and the SDK
 * sample servers: a client's session through it, the daemon's refusal, the daemon killed under
 * a call and the session resumed on a daemon the shim starts, and {@code route --apply} writing
 * entries that start it and {@code route --undo} taking them back. Skipped only where there is no
 * C compiler (and so no native shim in the jar).
 */
@ChecksProcessLeaks(waitMillis = 60_000)
class NativeShimIT {
  private static final String EVERYTHING = "server-everything";

  /** The native shim the packaged jar holds, copied out to {@code dir}; skipped where the build had no C compiler. */
  static Path shimFrom(Path jar, Path dir) throws Exception {
    Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux") && Files.isExecutable(Path.of("/usr/bin/cc")),
        "no C compiler: the build made no native shim");
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      var entry = zip.getEntry(NativeShim.resource());
      assertTrue(entry != null, jar + " holds no " + NativeShim.resource() + " although /usr/bin/cc exists");
      Path shim = dir.resolve("cotenant-shim");
      try (InputStream in = zip.getInputStream(entry)) {
        Files.copy(in, shim);
      }
      Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwx------"));
      return shim;
    }
  }

  /** {@code cotenant-shim --java JAVA --jar JAR connect SERVER CONFIG}, as a routed entry runs it. */
  private static List<String> command(Path shim, String server) {
    return List.of(shim.toString(), "--java", DaemonFixture.java(), "--jar", DaemonFixture.JAR.toString(), "connect", server,
        DaemonFixture.CONFIG.toString());
  }

  @Test
  void anSdkClientInitializesListsAndCallsThroughTheNativeShim() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Path shim = shimFrom(DaemonFixture.JAR, f.home);
      f.serve();
      List<String> cmd = command(shim, "echo");
      ServerParameters params = ServerParameters.builder(cmd.get(0)).args(cmd.subList(1, cmd.size())).env(f.env()).build();
      StdioClientTransport transport = new StdioClientTransport(params, DaemonFixture.MCP_JSON);
      List<String> stderr = new java.util.concurrent.CopyOnWriteArrayList<>();
      transport.setStdErrorHandler(stderr::add);
      List<ProcessHandle> shims;
      try (McpSyncClient c = McpClient.sync(transport).clientInfo(new McpSchema.Implementation("native", "1.0.0"))
          .requestTimeout(DaemonFixture.BOUND).initializationTimeout(DaemonFixture.BOUND).build()) {
        McpSchema.InitializeResult init = c.initialize();
        assertTrue(init.serverInfo() != null, init.toString());
        assertTrue(c.listTools().tools().stream().anyMatch(t -> t.name().equals("echo")), "tools/list names echo");
        String text = DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "through C"))));
        assertTrue(text.contains("through C"), text);
        // The shim is no JVM: nothing of this session started one.
        assertEquals(List.of(), DaemonFixture.marked("--start-only"), "the daemon ran already: nothing was started");
        shims = running(shim);
        assertEquals(1, shims.size(), shims.toString());
      }
      awaitGoneBeforeTheDaemonStops(shims);
      assertEquals(List.of(), stderr, "nothing on standard error");
    }
  }

  @Test
  void theClientClosingItsInputEndsTheShimWithZeroAndARefusalWithOneLine() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Path shim = shimFrom(DaemonFixture.JAR, f.home);
      f.serve();
      RawShim ok = new RawShim(f, command(shim, "echo"));
      ok.initialize();
      ok.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}}");
      assertTrue(ok.answer(2).path("result").toString().contains("x"));
      ok.in.close();
      assertEquals(0, ok.exit());
      assertEquals("", ok.err.get(10, TimeUnit.SECONDS));

      RawShim refused = new RawShim(f, command(shim, "no-such-server"));
      assertEquals(1, refused.exit());
      String err = refused.err.get(10, TimeUnit.SECONDS);
      assertTrue(err.startsWith("cotenant connect no-such-server: no server named 'no-such-server' in "), err);
      assertTrue(err.contains(DaemonFixture.CONFIG.toString()), err);
      assertEquals(1, err.strip().lines().count(), err);
    }
  }

  /**
   * The daemon killed with SIGKILL while a call is in flight on a shared backend: the call is
   * answered -32073, and the shim starts a new daemon (through {@code java -jar cotenant.jar
   * connect --start-only}, with its own {@code --set}) and resumes its session there, where the
   * next call is answered; closing the client's input then ends it with 0.
   */
  @Test
  void aDaemonKilledUnderACallInterruptsItAndTheShimResumesOnADaemonItStarts() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Path shim = shimFrom(DaemonFixture.JAR, f.home);
      String forced = "cotenant.sharing.forced=" + EVERYTHING;
      Process daemon = f.serve("--set", forced);
      List<String> command = new ArrayList<>(command(shim, EVERYTHING));
      command.addAll(List.of("--set", forced));
      RawShim busy = new RawShim(f, command);
      busy.initialize();
      busy.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
          + "\"trigger-long-running-operation\",\"arguments\":{\"duration\":60,\"steps\":60},\"_meta\":{\"progressToken\":\"p\"}}}");
      // In flight at the backend once it reports progress.
      String line;
      do {
        line = busy.out.readLine();
        assertTrue(line != null, "no progress; stderr: " + busy.err.getNow(""));
      } while (!line.contains("notifications/progress"));
      List<ProcessHandle> backends = new ArrayList<>(daemon.descendants().toList());

      daemon.destroyForcibly();
      JsonNode interrupted = busy.answer(9);
      assertEquals(-32073, interrupted.path("error").path("code").asInt(), interrupted.toString());
      assertEquals("call interrupted: the daemon (pid " + daemon.pid() + ") went away",
          interrupted.path("error").path("message").asString());
      assertEquals(List.of(), DaemonFixture.awaitGone(backends, java.time.Duration.ofSeconds(30)));

      long deadline = System.nanoTime() + DaemonFixture.BOUND.toNanos();
      long newPid = -1;
      int sessions = -1;
      while (System.nanoTime() < deadline && sessions != 1) {
        Thread.sleep(200);
        newPid = f.state().map(s -> s.path("pid").asLong()).orElse(-1L);
        if (newPid > 0 && newPid != daemon.pid()) {
          DaemonFixture.Run status = f.run("status", "--json");
          if (status.code() == 0) {
            sessions = DaemonFixture.JSON.readTree(status.out()).path("socket_sessions").asInt(-1);
          }
        }
      }
      java.util.function.Supplier<String> said = () -> "; the shim said: " + busy.err.getNow("(running)") + "; daemon.log: "
          + readOrNothing(f.home.resolve("daemon.log"));
      assertNotEquals(daemon.pid(), newPid, "a new daemon runs" + said.get());
      assertEquals(1, sessions, "the shim's session is on the new daemon" + said.get());
      assertTrue(busy.process.isAlive(), "the shim goes on");
      String log = Files.readString(f.home.resolve("daemon.log"));
      assertTrue(log.contains("daemon " + newPid + " ready"), log);
      assertTrue(log.contains("resuming a session whose daemon went away"), log);
      busy.send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"message\":\"resumed\"}}}");
      JsonNode echoed = busy.answer(10);
      assertTrue(echoed.toString().contains("resumed") && echoed.has("result"), echoed.toString());

      busy.in.close();
      assertEquals(0, busy.exit());
      assertEquals("", busy.err.get(10, TimeUnit.SECONDS), "a resumed session says nothing on standard error");
      DaemonFixture.Run stop = f.run("stop");
      assertEquals(0, stop.code(), stop.err());
    }
  }

  /**
   * {@code route --apply} run from the jar installs the native shim beside the jar's copy and
   * writes entries that start it; the entry works as the client starts it (starting the daemon),
   * and {@code route --undo --apply} gives back the file byte for byte.
   */
  @Test
  void routeWritesNativeEntriesThatStartAndUndoGivesBackTheFile() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Path reference = shimFrom(DaemonFixture.JAR, Files.createDirectories(f.home.resolve("reference")));
      String original = "{\n  \"mcpServers\": {\n    \"echo\": {\"command\": \"" + DaemonFixture.ROOT.resolve("examples/bin/echo")
          + "\"}, // the sample\n    \"web\": {\"url\": \"https://mcp.example.com/mcp\"},\n  }\n}\n";
      Path config = Files.writeString(f.home.resolve("client.json"), original);
      Path build = Files.createTempDirectory(Path.of("/tmp"), "ctb");
      Path jarCopy = Files.copy(DaemonFixture.JAR, build.resolve("cotenant.jar"));
      try {
        DaemonFixture.Run routed = run(f, List.of(DaemonFixture.java(), "-jar", jarCopy.toString(), "route", config.toString(),
            "--apply", "--json", "--all"));
        assertEquals(0, routed.code(), routed.err());
        JsonNode answer = DaemonFixture.JSON.readTree(routed.out());
        assertEquals("native", answer.path("shim").path("kind").asString(), routed.out());
        Files.delete(jarCopy);

        JsonNode echo = JSONC.readTree(Files.readString(config)).path("mcpServers").path("echo");
        Path installed = Path.of(echo.path("command").asString());
        assertEquals(f.home.resolve("lib").toRealPath(), installed.getParent().toRealPath(), echo.toString());
        assertTrue(installed.getFileName().toString().matches("cotenant-shim-[0-9a-f]{16}"), installed.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(installed)));
        assertArrayEquals(Files.readAllBytes(reference), Files.readAllBytes(installed), "the installed shim is the jar's");
        assertEquals(installed.toString(), answer.path("shim").path("path").asString());
        List<String> args = echo.path("args").valueStream().map(JsonNode::stringValue).toList();
        assertEquals(7, args.size(), args.toString());
        assertEquals(List.of("--java", "--jar", "connect", "echo"), List.of(args.get(0), args.get(2), args.get(4), args.get(5)));
        Path jar = Path.of(args.get(3));
        assertTrue(jar.getFileName().toString().matches("cotenant-[0-9a-f]{16}\\.jar"), jar.toString());
        assertEquals(-1L, Files.mismatch(DaemonFixture.JAR, jar), "the entry's jar is the installed copy");

        // The client starts the entry as written, with no daemon running: the shim starts one.
        List<ProcessHandle> shims;
        List<String> command = new ArrayList<>(List.of(installed.toString()));
        command.addAll(args);
        ServerParameters params = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()))
            .env(f.env()).build();
        StdioClientTransport transport = new StdioClientTransport(params, DaemonFixture.MCP_JSON);
        transport.setStdErrorHandler(l -> { });
        try (McpSyncClient c = McpClient.sync(transport).requestTimeout(DaemonFixture.BOUND)
            .initializationTimeout(DaemonFixture.BOUND).build()) {
          c.initialize();
          String text = DaemonFixture.text(c.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "routed natively"))));
          assertTrue(text.contains("routed natively"), text);
          shims = running(installed);
        }
        awaitGoneBeforeTheDaemonStops(shims);
        assertTrue(f.state().isPresent(), "the shim started a daemon");

        DaemonFixture.Run again = f.run("route", config.toString(), "--json");
        assertEquals(0, again.code(), again.err());
        assertEquals("echo", DaemonFixture.JSON.readTree(again.out()).path("alreadyRouted").path(0).asString(), again.out());

        DaemonFixture.Run undo = f.run("route", config.toString(), "--undo", "--apply");
        assertEquals(0, undo.code(), undo.err());
        assertEquals(original, Files.readString(config), "undo gives back the file as it was");
        DaemonFixture.Run stop = f.run("stop");
        assertEquals(0, stop.code(), stop.err());
      } finally {
        Files.deleteIfExists(jarCopy);
        Files.deleteIfExists(build);
      }
    }
  }

  /**
   * A jar without the native shim, and a jar whose native shim does not run here (its
   * {@code --version} fails), route to the JVM shim and say why; {@code --shim native} then
   * refuses with the reason and writes nothing.
   */
  @Test
  void withoutANativeShimThatRunsRouteWritesTheJvmEntryAndSaysWhy() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      shimFrom(DaemonFixture.JAR, f.home);
      Path build = Files.createTempDirectory(Path.of("/tmp"), "ctb");
      try {
        Path without = Files.copy(DaemonFixture.JAR, build.resolve("without.jar"));
        Path broken = Files.copy(DaemonFixture.JAR, build.resolve("broken.jar"));
        try (java.nio.file.FileSystem zip = java.nio.file.FileSystems.newFileSystem(without)) {
          Files.delete(zip.getPath(NativeShim.resource()));
        }
        try (java.nio.file.FileSystem zip = java.nio.file.FileSystems.newFileSystem(broken)) {
          Files.writeString(zip.getPath(NativeShim.resource()), "#!/bin/sh\necho not this one\nexit 3\n");
        }
        Map<Path, String> why = Map.of(
            without, "this cotenant.jar holds no native shim for " + NativeShim.platform(),
            broken, "does not run here: its --version exited with status 3: not this one");
        for (Map.Entry<Path, String> jar : why.entrySet()) {
          String original = "{\"mcpServers\": {\"echo\": {\"command\": \"" + DaemonFixture.ROOT.resolve("examples/bin/echo")
              + "\"}}}\n";
          Path config = Files.writeString(f.home.resolve("client.json"), original);
          DaemonFixture.Run insisted = run(f, List.of(DaemonFixture.java(), "-jar", jar.getKey().toString(), "route",
              config.toString(), "--apply", "--all", "--shim", "native"));
          assertEquals(2, insisted.code(), insisted.out() + insisted.err());
          assertTrue(insisted.err().contains("--shim native: ") && insisted.err().contains(jar.getValue()), insisted.err());
          assertEquals(original, Files.readString(config), "nothing written");

          DaemonFixture.Run routed = run(f, List.of(DaemonFixture.java(), "-jar", jar.getKey().toString(), "route",
              config.toString(), "--apply", "--all"));
          assertEquals(0, routed.code(), routed.err());
          String line = routed.out().lines().filter(l -> l.startsWith("  shim:")).findFirst().orElse("(none)");
          assertTrue(line.startsWith("  shim:            JVM (") && line.contains(jar.getValue()), routed.out());
          JsonNode echo = DaemonFixture.JSON.readTree(config.toFile()).path("mcpServers").path("echo");
          List<String> args = echo.path("args").valueStream().map(JsonNode::stringValue).toList();
          assertTrue(args.contains("-jar") && !args.contains("--java"), args.toString());
          assertEquals(Path.of(DaemonFixture.java()).toRealPath(), Path.of(echo.path("command").asString()).toRealPath());
          DaemonFixture.Run undo = run(f, List.of(DaemonFixture.java(), "-jar", jar.getKey().toString(), "route",
              config.toString(), "--undo", "--apply"));
          assertEquals(0, undo.code(), undo.err());
          assertEquals(original, Files.readString(config));
        }
      } finally {
        try (var files = Files.walk(build)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** This JVM's child processes running {@code program}. */
  private static List<ProcessHandle> running(Path program) {
    return ProcessHandle.current().children()
        .filter(p -> p.info().command().map(c -> c.equals(program.toString())).orElse(false)).toList();
  }

  /**
   * Waits until the SDK client's shims are gone. The SDK ends its server process without waiting
   * for it; a native shim still connected when its daemon then stops (this daemon sends no
   * stopping notice yet) would take the daemon's exit for its going away and start a new one.
   */
  private static void awaitGoneBeforeTheDaemonStops(List<ProcessHandle> shims) throws InterruptedException {
    assertEquals(List.of(), DaemonFixture.awaitGone(shims, java.time.Duration.ofSeconds(30)), "the shim exited");
  }

  private static String readOrNothing(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "(" + e.getMessage() + ")";
    }
  }

  /** A reader of the client file's JSONC (comments, trailing commas). */
  private static final tools.jackson.databind.json.JsonMapper JSONC = tools.jackson.databind.json.JsonMapper.builder()
      .enable(tools.jackson.core.json.JsonReadFeature.ALLOW_JAVA_COMMENTS)
      .enable(tools.jackson.core.json.JsonReadFeature.ALLOW_TRAILING_COMMA)
      .build();

  /**
   * Under a umask that lets the group write ({@code 002}), {@code route --apply} makes the home,
   * {@code lib/} and {@code routes/} 0700, the jar's copy 0600 and the native shim 0700; a copy
   * made group-writable and changed is written again, content and mode, by the next
   * {@code route}; and the native shim refuses to start a daemon with a jar others may write,
   * saying which file and why, and starts none. Mutants: directories made with the umask's mode,
   * the copy checked by size, the shim's check of the jar removed.
   */
  @Test
  void routeUnderAGroupUmaskKeepsTheHomePrivateAndTheShimRunsNoJarOthersMayWrite() throws Exception {
    try (DaemonFixture f = new DaemonFixture()) {
      Path home = f.home.resolve("h");
      Path config = Files.writeString(f.home.resolve("client.json"), "{\"mcpServers\": {\"echo\": {\"command\": \""
          + DaemonFixture.ROOT.resolve("examples/bin/echo") + "\"}}}\n");
      Path build = Files.createTempDirectory(Path.of("/tmp"), "ctb");
      Path jarCopy = Files.copy(DaemonFixture.JAR, build.resolve("cotenant.jar"));
      List<String> route = List.of("sh", "-c", "umask 002 && exec \"$@\"", "sh", DaemonFixture.java(), "-jar",
          jarCopy.toString(), "route", config.toString(), "--apply", "--json", "--all");
      try {
        DaemonFixture.Run routed = run(f, route, Map.of("COTENANT_HOME", home.toString()));
        assertEquals(0, routed.code(), routed.err());
        assertEquals("native", DaemonFixture.JSON.readTree(routed.out()).path("shim").path("kind").asString(), routed.out());
        for (Path dir : List.of(home, home.resolve("lib"), home.resolve("routes"))) {
          assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)), dir.toString());
        }
        JsonNode echo = JSONC.readTree(Files.readString(config)).path("mcpServers").path("echo");
        Path shim = Path.of(echo.path("command").asString());
        List<String> args = echo.path("args").valueStream().map(JsonNode::stringValue).toList();
        Path jar = Path.of(args.get(3));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(shim)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));

        // Someone who could write the copy changes it, keeping its size: route writes it again.
        byte[] bytes = Files.readAllBytes(jar);
        bytes[bytes.length / 2] ^= 1;
        Files.write(jar, bytes);
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-r--"));
        DaemonFixture.Run again = run(f, route, Map.of("COTENANT_HOME", home.toString()));
        assertEquals(0, again.code(), again.err());
        assertEquals(-1L, Files.mismatch(DaemonFixture.JAR, jar), "the copy is the jar's again");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));

        // A copy others may write is never run: the shim refuses to start the daemon with it.
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-rw-"));
        List<String> entry = new ArrayList<>(List.of(shim.toString()));
        entry.addAll(args);
        DaemonFixture.Run refused = run(f, entry, Map.of("COTENANT_HOME", home.toString()));
        assertEquals(1, refused.code(), refused.err());
        assertTrue(refused.err().contains("refusing to start the daemon with " + jar)
            && refused.err().contains("is writable by others (mode 0666)"), refused.err());
        assertTrue(Files.notExists(home.resolve("daemon.json")), "no daemon was started");
      } finally {
        Files.deleteIfExists(jarCopy);
        Files.deleteIfExists(build);
      }
    }
  }

  private static DaemonFixture.Run run(DaemonFixture f, List<String> command) throws Exception {
    return run(f, command, Map.of());
  }

  private static DaemonFixture.Run run(DaemonFixture f, List<String> command, Map<String, String> env) throws Exception {
    Process p = f.start(command, env);
    p.getOutputStream().close();
    CompletableFuture<String> out = DaemonFixture.drain(p.getInputStream());
    CompletableFuture<String> err = DaemonFixture.drain(p.getErrorStream());
    assertTrue(p.waitFor(DaemonFixture.BOUND.toSeconds(), TimeUnit.SECONDS));
    return new DaemonFixture.Run(p.exitValue(), out.join(), err.join());
  }
}
