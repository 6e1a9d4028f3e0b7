package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How an {@code npx} launch is found without the network: npm's own key of the npx cache, the
 * local project first, the bin {@code npm exec} would pick, and a clear refusal otherwise.
 */
class NpxLaunchTest {
  @TempDir Path cache;
  @TempDir Path project;
  @TempDir Path temp;

  /** Installs {@code name@version} under {@code nodeModules} as npm does: the package and its {@code .bin} link. */
  private static Path install(Path nodeModules, String name, String version, String binJson, String... bins)
      throws IOException {
    Path pkg = Files.createDirectories(nodeModules.resolve(name));
    Files.writeString(pkg.resolve("package.json"),
        "{\"name\":\"" + name + "\",\"version\":\"" + version + "\",\"bin\":" + binJson + "}");
    Path main = Files.writeString(pkg.resolve("index.js"), "#!/usr/bin/env node\n");
    Files.setPosixFilePermissions(main, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path bin = Files.createDirectories(nodeModules.resolve(".bin"));
    for (String b : bins) {
      Files.deleteIfExists(bin.resolve(b));
      Files.createSymbolicLink(bin.resolve(b), bin.relativize(main));
    }
    return bin;
  }

  private Path npxDir(String... specs) throws IOException {
    return Files.createDirectories(cache.resolve("_npx").resolve(NpxLaunch.hash(List.of(specs))).resolve("node_modules"));
  }

  private NpxLaunch.Outcome resolve(List<String> args) {
    return NpxLaunch.resolve("npx", args, Map.of("npm_config_cache", cache.toString()), project);
  }

  /** The keys npm 11 wrote for these specs on a real machine (`~/.npm/_npx/<key>/package.json` names the spec). */
  @Test
  void theCacheKeyIsNpmsOwn() {
    assertEquals("f010b0edd17c3e2a", NpxLaunch.hash(List.of("time-mcp")));
    assertEquals("831cf4d56a5d935d", NpxLaunch.hash(List.of("time-mcp@1.0.6")));
    assertEquals("15b07286cbcc3329", NpxLaunch.hash(List.of("@modelcontextprotocol/server-memory")));
    assertEquals(NpxLaunch.hash(List.of("a", "b")), NpxLaunch.hash(List.of("b", "a")), "sorted before hashing");
  }

  @Test
  void aPackageInTheNpxCacheRunsItsBinWithTheSameArgumentsAndItsBinDirectoryFirst() throws Exception {
    Path bin = install(npxDir("@scope/server-x"), "@scope/server-x", "2.0.0", "\"index.js\"", "server-x");
    NpxLaunch.Outcome o = resolve(List.of("-y", "@scope/server-x", "/data", "--flag"));
    NpxLaunch.Resolved r = o.resolved().orElseThrow(() -> new AssertionError(o.why()));
    assertEquals(bin.resolve("server-x").toString(), r.command(), "a string bin is named after the unscoped package");
    assertEquals(List.of("/data", "--flag"), r.args());
    assertEquals(bin, r.binDirectory());
    assertTrue(r.from().contains("npx cache"), r.from());
  }

  @Test
  void anExactVersionMustMatchAndKeysItsOwnDirectory() throws Exception {
    install(npxDir("tool@1.2.3"), "tool", "1.2.4", "{\"tool\":\"index.js\"}", "tool");
    assertTrue(resolve(List.of("-y", "tool@1.2.3")).resolved().isEmpty(), "1.2.4 installed, 1.2.3 asked");
    install(npxDir("tool@1.2.3"), "tool", "1.2.3", "{\"tool\":\"index.js\"}", "tool");
    assertTrue(resolve(List.of("--yes", "tool@1.2.3")).resolved().isPresent());
    assertTrue(resolve(List.of("-y", "tool")).resolved().isEmpty(), "another spec is another directory");
  }

  @Test
  void theLocalProjectComesFirstAndIsFoundFromASubdirectory() throws Exception {
    Path localBin = install(project.resolve("node_modules"), "tool", "1.0.0", "{\"tool\":\"index.js\"}", "tool");
    install(npxDir("tool"), "tool", "9.0.0", "{\"tool\":\"index.js\"}", "tool");
    Path sub = Files.createDirectories(project.resolve("a/b"));
    NpxLaunch.Resolved r = NpxLaunch.resolve("/usr/local/bin/npx", List.of("tool"), Map.of("npm_config_cache", cache.toString()), sub)
        .resolved().orElseThrow();
    assertEquals(localBin.resolve("tool").toString(), r.command());
    assertTrue(r.from().contains(project.toString()), r.from());
    // A range is not checked against the project's version: only npx's own install of that spec counts.
    install(npxDir("tool@^9"), "tool", "9.0.0", "{\"tool\":\"index.js\"}", "tool");
    assertTrue(resolve(List.of("-y", "tool@^9")).resolved().orElseThrow().from().contains("npx cache"));
  }

  @Test
  void severalBinsPickTheOneNamedAfterThePackageOrNone() throws Exception {
    Path bin = install(npxDir("multi"), "multi", "1.0.0", "{\"multi\":\"index.js\",\"other\":\"index.js\"}", "multi", "other");
    assertEquals(bin.resolve("multi").toString(), resolve(List.of("-y", "multi")).resolved().orElseThrow().command());
    install(npxDir("amb"), "amb", "1.0.0", "{\"one\":\"index.js\",\"two\":\"index.js\"}", "one", "two");
    assertTrue(resolve(List.of("-y", "amb")).resolved().isEmpty(), "no bin to pick");
    // --package names the package; the first word is then the executable.
    Path b = install(npxDir("amb"), "amb", "1.0.0", "{\"one\":\"index.js\",\"two\":\"index.js\"}", "one", "two");
    NpxLaunch.Resolved r = resolve(List.of("-y", "--package=amb", "two", "x")).resolved().orElseThrow();
    assertEquals(b.resolve("two").toString(), r.command());
    assertEquals(List.of("x"), r.args());
    assertEquals(b.resolve("one").toString(), resolve(List.of("-p", "amb", "--", "one")).resolved().orElseThrow().command());
  }

  @Test
  void whatIsNotReadOrNotInstalledSaysWhy() {
    assertTrue(NpxLaunch.resolve("node", List.of("x.js"), Map.of(), project).why().isEmpty(), "not npx: nothing to say");
    assertTrue(resolve(List.of("-c", "echo hi")).why().orElseThrow().contains("-c"));
    assertTrue(resolve(List.of("-y", "./local-dir")).why().orElseThrow().contains("not a registry package name"));
    assertTrue(resolve(List.of("-y", "github:user/repo")).why().orElseThrow().contains("not a registry package name"));
    assertTrue(resolve(List.of("-y")).why().orElseThrow().contains("names no package"));
    String why = resolve(List.of("-y", "absent-server")).why().orElseThrow();
    assertTrue(why.contains("absent-server is not installed in npm's npx cache (" + cache.resolve("_npx") + ")"), why);
    assertTrue(why.contains("no network to fetch it"), why);
  }

  @Test
  void theCacheDefaultsToTheHomesNpmDirectory() throws Exception {
    Path home = Files.createDirectories(temp.resolve("home"));
    Path bin = install(Files.createDirectories(home.resolve(".npm/_npx").resolve(NpxLaunch.hash(List.of("tool"))).resolve("node_modules")),
        "tool", "1.0.0", "\"index.js\"", "tool");
    NpxLaunch.Outcome o = NpxLaunch.resolve("npx", List.of("-y", "tool"), Map.of("HOME", home.toString()), project);
    assertEquals(bin.resolve("tool").toString(), o.resolved().orElseThrow(() -> new AssertionError(o.why())).command());
  }

  @Test
  void theSandboxRunsTheResolvedBinOrRefusesWithTheReasonAndLeavesNothing() throws Exception {
    Path bin = install(npxDir("tool"), "tool", "1.0.0", "\"index.js\"", "tool");
    SandboxLayout layout = new SandboxLayout("/usr/bin/bwrap", false, temp, temp.resolve("h"));
    ServerDescription npx = new ServerDescription("t", Transport.STDIO, "npx", List.of("-y", "tool", "--port", "0"),
        Optional.of(project.toString()), Map.of("npm_config_cache", cache.toString(), "PATH", "/usr/bin"),
        Optional.empty(), true);
    SandboxLayout.Launch launch = layout.prepare(npx, List.of());
    List<String> args = launch.server().args();
    List<String> command = args.subList(args.indexOf("--") + 1, args.size());
    assertEquals(List.of(bin.resolve("tool").toString(), "--port", "0"), command);
    assertEquals(bin + ":/usr/bin", launch.server().env().get("PATH"));
    assertTrue(launch.notes().stream().anyMatch(n -> n.contains("npx would ask the registry first")), launch.notes().toString());
    SandboxLayout.delete(launch.root());

    ServerDescription absent = new ServerDescription("t", Transport.STDIO, "npx", List.of("-y", "absent"),
        Optional.of(project.toString()), Map.of("npm_config_cache", cache.toString()), Optional.empty(), true);
    SandboxLayout.Unlaunchable e = assertThrows(SandboxLayout.Unlaunchable.class, () -> layout.prepare(absent, List.of()));
    assertTrue(e.getMessage().startsWith("npx cannot start t in the sandbox: absent is not installed"), e.getMessage());
    try (var left = Files.list(temp)) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().startsWith(SandboxLayout.PREFIX)), "the private directory is gone");
    }
    // With the network shared, npx is left to fetch it itself.
    SandboxLayout.Launch online = new SandboxLayout("/usr/bin/bwrap", true, temp, temp.resolve("h")).prepare(absent, List.of());
    List<String> a = online.server().args();
    assertEquals(List.of("npx", "-y", "absent"), a.subList(a.indexOf("--") + 1, a.size()));
    SandboxLayout.delete(online.root());
  }
}
