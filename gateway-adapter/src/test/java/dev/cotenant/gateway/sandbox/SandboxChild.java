package dev.cotenant.gateway.sandbox;

import dev.cotenant.api.ServerDescription;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A probe's process in miniature, for {@link SandboxLifetimeTest}: starts, in the sandbox, a
 * server that leaves a child and a {@code setsid} grandchild behind and says {@code started},
 * then waits to be killed. Arguments: the bubblewrap executable and the temp directory.
 */
public final class SandboxChild {
  private SandboxChild() {}

  /** Runs until killed. */
  public static void main(String[] args) throws Exception {
    Path temp = Path.of(args[1]);
    ServerDescription server = ServerDescription.stdio("lingering", "sh", "-c",
        "sleep 600 & setsid sleep 600 & echo started; wait");
    SandboxLayout.Launch launch = new SandboxLayout(args[0], false, temp, temp,
        new HostBoundary(List.of(), Map.of())).prepare(server, List.of());
    List<String> command = new ArrayList<>(List.of(launch.server().command()));
    command.addAll(launch.server().args());
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.INHERIT)
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().putAll(launch.server().env());
    pb.start();
    Thread.sleep(Long.MAX_VALUE);
  }
}
