package dev.cotenant.gateway.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a launch in the sandbox is made of, without starting anything: which named paths become
 * private copies, shadows or stay read-only, the mounts in an order bubblewrap can apply, the
 * private {@code HOME} and {@code TMPDIR}, and the private directory removed afterwards.
 */
class SandboxLayoutTest {
  @TempDir Path temp;
  @TempDir Path data;

  private SandboxLayout layout(boolean network) {
    return new SandboxLayout("/usr/bin/bwrap", network, temp, data.resolve("home"));
  }

  private static ServerDescription server(List<String> args, Map<String, String> env, Optional<String> cwd) {
    return new ServerDescription("s", Transport.STDIO, "node", args, cwd, env, Optional.empty(), true);
  }

  /** The mounts, as (option, source, destination) triples, in order. */
  private static List<List<String>> mounts(List<String> args) {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < args.size() && !args.get(i).equals("--"); i++) {
      String a = args.get(i);
      if (a.equals("--bind") || a.equals("--ro-bind") || a.equals("--ro-bind-try")) {
        out.add(List.of(a, args.get(i + 1), args.get(i + 2)));
        i += 2;
      }
    }
    return out;
  }

  private static List<String> mountAt(List<List<String>> mounts, Path dest) {
    return mounts.stream().filter(m -> m.get(2).equals(dest.toString())).findFirst()
        .orElseThrow(() -> new AssertionError(dest + " not mounted: " + mounts));
  }

  @Test
  void aNamedDirectoryIsCopiedAndMountedWritableAtItsPath() throws Exception {
    Path notes = Files.createDirectories(data.resolve("notes/sub"));
    Files.writeString(notes.resolve("a.md"), "alpha");
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of("server.js", data.resolve("notes").toString()),
        Map.of(), Optional.empty()), List.of());
    List<String> m = mountAt(mounts(launch.server().args()), data.resolve("notes"));
    assertEquals("--bind", m.get(0));
    Path copy = Path.of(m.get(1));
    assertTrue(copy.startsWith(launch.root()), m.toString());
    assertEquals("alpha", Files.readString(copy.resolve("sub/a.md")));
    assertTrue(launch.notes().contains(data.resolve("notes") + ": a private copy"), launch.notes().toString());
    SandboxLayout.delete(launch.root());
    assertFalse(Files.exists(launch.root()));
    assertEquals("alpha", Files.readString(notes.resolve("a.md")), "the original is untouched");
  }

  @Test
  void aNamedFileGetsAShadowOfItsDirectoryWithTheFileCopiedAndEverySiblingMountedReadOnlyAtItsOwnPath()
      throws Exception {
    Path dir = Files.createDirectories(data.resolve("mem"));
    Path file = Files.writeString(dir.resolve("memory.jsonl"), "{}\n");
    Files.writeString(dir.resolve("other.txt"), "other");
    Files.createDirectories(dir.resolve("lib"));
    Files.createSymbolicLink(dir.resolve("link"), Path.of("other.txt"));
    Path missing = dir.resolve("later.db");
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of("--db=" + missing),
        Map.of("MEMORY_FILE_PATH", file.toString()), Optional.empty()), List.of());
    List<List<String>> mounts = mounts(launch.server().args());
    Path shadow = Path.of(mountAt(mounts, dir).get(1));
    assertEquals("--bind", mountAt(mounts, dir).get(0));
    assertEquals("{}\n", Files.readString(shadow.resolve("memory.jsonl")));
    assertEquals(List.of("--ro-bind-try", dir.resolve("other.txt").toString(), dir.resolve("other.txt").toString()),
        mountAt(mounts, dir.resolve("other.txt")), "a sibling keeps its own real path");
    assertEquals("--ro-bind-try", mountAt(mounts, dir.resolve("lib")).get(0));
    assertTrue(Files.isRegularFile(shadow.resolve("other.txt")) && Files.isDirectory(shadow.resolve("lib")),
        "placeholders to mount on");
    assertEquals(Path.of("other.txt"), Files.readSymbolicLink(shadow.resolve("link")), "a link is copied as a link");
    assertTrue(mounts.indexOf(mountAt(mounts, dir)) < mounts.indexOf(mountAt(mounts, dir.resolve("other.txt"))),
        "the shadow is mounted before the siblings inside it");
    assertFalse(Files.exists(shadow.resolve("later.db")), "a path that does not exist yet is created privately");
    assertTrue(launch.notes().contains(missing + ": private, created in the sandbox"), launch.notes().toString());
    SandboxLayout.delete(launch.root());
    assertEquals("other", Files.readString(dir.resolve("other.txt")));
  }

  @Test
  void aFileDirectlyInTheTempDirectoryIsCopiedAloneAndTheCommandThereStaysVisible() throws Exception {
    Path file = Files.writeString(temp.resolve("precious.txt"), "keep");
    Path script = Files.writeString(Files.createDirectories(temp.resolve("bin")).resolve("server.sh"), "#!/bin/sh\n");
    ServerDescription s = new ServerDescription("s", Transport.STDIO, script.toString(), List.of(),
        Optional.empty(), Map.of("FILE", file.toString()), Optional.empty(), true);
    SandboxLayout.Launch launch = layout(false).prepare(s, List.of());
    List<List<String>> mounts = mounts(launch.server().args());
    assertEquals("--bind", mountAt(mounts, file).get(0));
    assertEquals("keep", Files.readString(Path.of(mountAt(mounts, file).get(1))));
    SandboxLayout.delete(launch.root());
    assertEquals("keep", Files.readString(file));
  }

  @Test
  void theCommandUnderTmpHasItsDirectoryMountedReadOnly() throws Exception {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "cotenant-layout-test-");
    try {
      Path script = Files.writeString(dir.resolve("server.sh"), "#!/bin/sh\n");
      ServerDescription s = new ServerDescription("s", Transport.STDIO, script.toString(), List.of(), Optional.empty(),
          Map.of(), Optional.empty(), true);
      SandboxLayout.Launch launch = layout(false).prepare(s, List.of());
      assertEquals(List.of("--ro-bind", dir.toString(), dir.toString()), mountAt(mounts(launch.server().args()), dir));
      SandboxLayout.delete(launch.root());
    } finally {
      SandboxLayout.delete(dir);
    }
  }

  @Test
  void aDirectoryTooLargeToCopyStaysReadOnlyAndSaysWhy() throws Exception {
    Path big = Files.createDirectories(data.resolve("big"));
    for (int i = 0; i <= SandboxLayout.MAX_COPY_ENTRIES; i++) {
      Files.createFile(big.resolve("f" + i));
    }
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of(big.toString()), Map.of(), Optional.empty()),
        List.of());
    assertEquals(List.of("--ro-bind", big.toString(), big.toString()), mountAt(mounts(launch.server().args()), big),
        "read-only at its path (under /tmp, which the sandbox replaces, it must be mounted to be seen at all)");
    assertTrue(launch.notes().contains(big + ": read-only (more than " + SandboxLayout.MAX_COPY_ENTRIES + " entries)"),
        launch.notes().toString());
    SandboxLayout.delete(launch.root());
  }

  @Test
  void theNamespacesHomeTmpdirAndWorkingDirectoryAreSetAndSystemPathsAreLeftAlone() throws Exception {
    Path scratch = Files.createDirectories(temp.resolve("cotenant-probe-x/probe-shared-1"));
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of("/usr/lib", "/etc/hosts", "~/nothing-here"),
        Map.of("PATH", "/usr/bin"), Optional.of(scratch.toString())), List.of(temp.resolve("cotenant-probe-x")));
    ServerDescription s = launch.server();
    assertEquals("/usr/bin/bwrap", s.command());
    List<String> args = s.args();
    assertTrue(args.containsAll(List.of("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net",
        "--new-session")), args.toString());
    assertEquals(List.of("--", "node", "/usr/lib", "/etc/hosts", "~/nothing-here"),
        args.subList(args.indexOf("--"), args.size()));
    assertEquals(scratch.toString(), args.get(args.indexOf("--chdir") + 1));
    List<List<String>> mounts = mounts(args);
    assertEquals(List.of("--ro-bind", "/", "/"), mounts.get(0));
    if (temp.getParent().equals(Path.of("/tmp"))) {
      assertEquals(List.of("--ro-bind-try", temp.toString(), temp.toString()), mountAt(mounts, temp),
          "the host's /tmp entries are shown read-only in the private /tmp");
    }
    assertEquals(List.of("--bind", temp.resolve("cotenant-probe-x").toString(), temp.resolve("cotenant-probe-x").toString()),
        mountAt(mounts, temp.resolve("cotenant-probe-x")), "the probe's scratch is live, not a copy");
    assertTrue(mounts.stream().noneMatch(m -> m.get(2).startsWith("/usr") || m.get(2).startsWith("/etc")), mounts.toString());
    assertEquals(launch.root().resolve("home").toString(), s.env().get("HOME"));
    assertEquals(launch.root().resolve("tmp").toString(), s.env().get("TMPDIR"));
    assertEquals("/usr/bin", s.env().get("PATH"));
    assertTrue(Files.isDirectory(launch.root().resolve("home")));
    SandboxLayout.delete(launch.root());

    SandboxLayout.Launch networked = layout(true).prepare(server(List.of(), Map.of(), Optional.empty()), List.of());
    assertFalse(networked.server().args().contains("--unshare-net"));
    SandboxLayout.delete(networked.root());
  }

  @Test
  void aConfiguredHomeIsKeptAndBecomesAPrivateCopy() throws Exception {
    Path home = Files.createDirectories(data.resolve("their-home"));
    Files.writeString(home.resolve(".rc"), "x");
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of(), Map.of("HOME", home.toString()),
        Optional.empty()), List.of());
    assertEquals(home.toString(), launch.server().env().get("HOME"));
    assertEquals("--bind", mountAt(mounts(launch.server().args()), home).get(0));
    SandboxLayout.delete(launch.root());
  }

  @Test
  void aPrivateDirectoryLeftByAProcessThatIsGoneIsSweptAndOneOfALiveProcessIsKept() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path left = Files.createDirectories(temp.resolve(SandboxLayout.PREFIX + gone.pid() + "-123/home"));
    Path mine = Files.createDirectories(temp.resolve(SandboxLayout.PREFIX + ProcessHandle.current().pid() + "-456"));
    Path other = Files.createDirectories(temp.resolve(SandboxLayout.PREFIX + "notapid"));
    SandboxLayout.Launch launch = layout(false).prepare(server(List.of(), Map.of(), Optional.empty()), List.of());
    assertFalse(Files.exists(left.getParent()), "left by a process that is gone");
    assertTrue(Files.isDirectory(mine), "a live process's");
    assertTrue(Files.isDirectory(other), "not one of ours");
    assertTrue(launch.root().getFileName().toString().startsWith(SandboxLayout.PREFIX + ProcessHandle.current().pid() + "-"));
    SandboxLayout.delete(launch.root());
  }
}
