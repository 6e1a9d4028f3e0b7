package dev.cotenant.cli;

import dev.cotenant.cli.views.Output;
import dev.cotenant.cli.route.ConfigText;
import dev.cotenant.cli.route.Launch;
import dev.cotenant.cli.route.NativeShim;
import dev.cotenant.cli.route.RoutePlan;
import dev.cotenant.cli.route.RoutePlan.Kind;
import dev.cotenant.cli.route.RoutePlan.Outcome;
import dev.cotenant.cli.route.Router;
import dev.cotenant.cli.route.Sidecar;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.records.RecordsDirectory;
import dev.cotenant.cli.daemon.CotenantHome;
import dev.cotenant.cli.route.PrivateFiles;
import dev.cotenant.spi.files.AtomicFiles;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code cotenant route CONFIG [--apply] [--undo] [--all] [--refresh] [--launcher PATH]
 * [--shim auto|native|jvm]}: rewrites a client's MCP configuration so that each stdio server whose
 * sessions the daemon would place on a shared backend (its verdict recommends sharing, or it is
 * forced), or whose sessions' start the daemon answers from the records until their first call
 * (so a session that never calls it starts no process), is launched through
 * {@code cotenant connect NAME SIDECAR}, the original entry kept
 * verbatim in a {@linkplain Sidecar sidecar} where the daemon reads it; the others stay direct,
 * each with its reason ({@code --all} routes them too). {@code --refresh} also restores routed
 * entries whose sessions would no longer share; {@code --undo} puts every original back. Without {@code --apply} the new content of CONFIG is printed and nothing is written. With
 * it the sidecar is written first (routing) or last (undoing), so a failure never leaves a routed
 * entry without its original. Run from the jar, routed entries start the {@linkplain NativeShim
 * native shim} when the jar holds one that runs here, else the JVM shim; the summary says which
 * and why. See {@code docs/routing.md}.
 */
@Command(
    name = "route",
    description =
        "Rewrite a client's MCP configuration so each stdio server whose sessions would share a backend, or "
            + "wait for their first call to start one, launches through 'cotenant connect' (--all: every stdio server), its original entry kept in a "
            + "sidecar file; --refresh routes again after verdicts changed; --undo restores the originals. Prints "
            + "the new content of CONFIG unless --apply.")
public final class RouteCommand extends CliCommand {
  @Parameters(index = "0", paramLabel = "CONFIG", description = "The client's MCP configuration file.")
  String config;

  @Option(names = "--apply", description = "Write CONFIG and the sidecar (under their locks, atomically).")
  boolean apply;

  @Option(names = "--undo", description = "Restore the original entries kept in the sidecar.")
  boolean undo;

  @Option(
      names = "--launcher",
      paramLabel = "PATH",
      description = "The command routed entries start (e.g. the ./cotenant script), instead of java -jar cotenant.jar.")
  String launcher;

  @Option(
      names = "--shim",
      paramLabel = "KIND",
      description = "Which shim routed entries start: auto (the native shim when this jar holds one that runs here, "
          + "else the JVM shim; the default), native (fail without it) or jvm.")
  String shim = "auto";

  @Option(names = "--all", description = "Route every stdio server, also those whose sessions would each start a backend of "
      + "their own anyway (by default those stay direct: a shim would only add to them).")
  boolean all;

  @Option(names = "--refresh", description = "Route again after verdicts changed: route the servers whose sessions now "
      + "share or defer a backend, and restore the routed ones whose sessions no longer would.")
  boolean refresh;

  /** Created by picocli. */
  public RouteCommand() {}

  @Override
  public Integer call() throws Exception {
    CliContext cx = context();
    Path file = cx.resolve(config);
    new McpConfigReader().read(List.of(file));
    ConfigText text = ConfigText.read(file);
    Sidecar sidecar = Sidecar.of(file, cotenantHome().dir());
    if (!List.of("auto", "native", "jvm").contains(shim)) {
      throw new UsageException("--shim " + shim + ": give auto, native or jvm");
    }
    if (!shim.equals("auto") && (undo || launcher != null)) {
      throw new UsageException("--shim chooses the shim of entries routed to the installed jar; it does not go with "
          + (undo ? "--undo" : "--launcher"));
    }
    if (undo && (all || refresh)) {
      throw new UsageException("--undo restores every routed entry; it does not go with " + (all ? "--all" : "--refresh"));
    }
    Optional<Installed> installed = undo || launcher != null ? Optional.empty() : Optional.of(installed());
    NativeShim.Choice choice = installed.isPresent() ? choose(installed.get()) : null;
    java.util.function.Function<String, Optional<String>> direct = undo || all ? name -> Optional.empty() : direct(file);
    // --refresh: the routed entries whose sessions would no longer share go back to their originals first.
    RoutePlan restore = refresh ? Router.undo(text, sidecar.file(), sidecar.read(), name -> direct.apply(name).isPresent())
        : null;
    ConfigText base = restore == null ? text : ConfigText.of(file, restore.text());
    RoutePlan plan =
        undo
            ? Router.undo(text, sidecar.file(), sidecar.read())
            : Router.route(base, installed.isPresent() ? installed.get().launch(choice) : launch(), sidecar.file(),
                sidecar.read(), explicitHome(), direct);
    boolean sidecarRemoved = false;
    if (apply && undo) {
      if (!plan.text().equals(text.text())) {
        ConfigText.write(file, text.text(), plan.text());
      }
      if (!plan.originals().isEmpty()) {
        sidecarRemoved = sidecar.remove(plan.originals());
      }
    } else if (apply) {
      if (installed.isPresent() && !(plan.of(Kind.ROUTED).isEmpty() && plan.of(Kind.ALREADY_ROUTED).isEmpty())) {
        installed.get().install(cotenantHome());
        if (choice != null && choice.isNative()) {
          NativeShim.Choice put = NativeShim.installAndCheck(installed.get().shim().orElseThrow(), lib());
          if (!put.isNative() && shim.equals("native")) {
            throw new UsageException("--shim native: " + put.why());
          }
          if (!put.equals(choice)) {
            choice = put;
            plan = Router.route(base, installed.get().launch(choice), sidecar.file(), sidecar.read(), explicitHome(), direct);
          }
        }
      }
      if (!plan.originals().isEmpty()) {
        sidecar.add(plan);
      }
      if (!plan.text().equals(text.text())) {
        ConfigText.write(file, text.text(), plan.text());
      }
      if (restore != null && !restore.originals().isEmpty()) {
        sidecarRemoved = sidecar.remove(restore.originals());
      }
    }
    boolean changes = !plan.text().equals(text.text());
    if (common.json()) {
      ObjectNode o = json(plan, cx.display(file), sidecar, sidecarRemoved, choice);
      if (restore != null) {
        names(o.putArray("restored"), restore.of(Kind.RESTORED));
      }
      Output.json(cx.out(), o);
      return Cli.EXIT_OK;
    }
    if (!apply) {
      cx.out().print(plan.text());
      cx.out().flush();
    }
    summary(apply ? cx.out() : cx.err(), plan, cx.display(file), sidecar, sidecarRemoved, changes, choice);
    if (restore != null) {
      (apply ? cx.out() : cx.err()).println("  restored:        " + list(restore.of(Kind.RESTORED))
          + (restore.of(Kind.RESTORED).isEmpty() ? "" : " (their sessions would no longer share a backend)"));
      (apply ? cx.out() : cx.err()).flush();
    }
    return Cli.EXIT_OK;
  }

  /**
   * Why each server of {@code file} stays direct, by name; empty for a server routing saves on:
   * one whose sessions the daemon would place on a shared backend now (its verdict recommends
   * sharing, or it is forced with {@code --set cotenant.sharing.forced}), or whose sessions' start
   * the daemon answers from the records, starting a process only for a session that calls it
   * ({@link dev.cotenant.gateway.sharing.StartDecision#onRecord}). A routed entry is judged by its
   * original (the sidecar's).
   */
  private java.util.function.Function<String, Optional<String>> direct(Path file) throws Exception {
    CliRuntime rt = runtime();
    dev.cotenant.gateway.config.ServerConfigs configs = rt.readConfigs(List.of(file.toString()));
    dev.cotenant.gateway.sharing.SharingSettings set =
        dev.cotenant.gateway.sharing.SharingSettings.fromConfig(rt.cotenant().config());
    // The daemon shares (cotenant.sharing.enabled=true is its default), whatever this command's settings say.
    dev.cotenant.gateway.sharing.SharingSettings daemon =
        new dev.cotenant.gateway.sharing.SharingSettings(true, set.forced(), set.admitTimeout(), set.defer());
    dev.cotenant.gateway.Cotenant c = rt.cotenant();
    dev.cotenant.spi.HazardLedger ledger = c.recordStores().hazardLedger();
    dev.cotenant.spi.PreflightCache.Snapshot preflights = c.recordStores().preflightCache().snapshot();
    java.util.Map<String, dev.cotenant.api.ServerDescription> servers = new java.util.HashMap<>();
    configs.list().forEach(s -> servers.put(s.name(), s.description()));
    java.util.Map<String, Optional<String>> why = new java.util.HashMap<>();
    for (dev.cotenant.gateway.rows.Row r : rt.rows(configs.list())) {
      dev.cotenant.gateway.sharing.PlacementDecision d =
          dev.cotenant.gateway.sharing.PlacementDecision.decide(r.name(), r.verdict(), daemon);
      if (d.placement() == dev.cotenant.gateway.pool.Placement.SHARED) {
        why.put(r.name(), Optional.empty());
        continue;
      }
      dev.cotenant.api.ServerDescription server = servers.get(r.name());
      dev.cotenant.api.ExecutionIdentity id = c.identityOf(server);
      dev.cotenant.gateway.sharing.StartDecision start = dev.cotenant.gateway.sharing.StartDecision.onRecord(
          daemon.defer(), preflights.measurement(r.name(), id.cacheKey()), ledger.codesFor(r.name(), id.ledgerKey()),
          ledger.snapshot().incomplete());
      why.put(r.name(), start.deferred() ? Optional.empty()
          : Optional.of("left direct: " + d.why() + ", and its sessions cannot wait for their first call to start it ("
              + start.why() + "), so each session would start a backend of its own and a shim would only add to it ("
              + whatNext(r) + "; --all routes it anyway)"));
    }
    return name -> why.getOrDefault(name, Optional.of("left direct: no verdict could be read for it"));
  }

  /**
   * What the user may do about a server left direct: {@code cotenant share} only where it can
   * succeed. A refuted server (a hazard was observed under its current launch identity) and a
   * disqualified one stop {@code share} before it runs anything, so they get their reason instead.
   */
  static String whatNext(dev.cotenant.gateway.rows.Row r) {
    if (r.strength() == dev.cotenant.api.Strength.REFUTED) {
      return "a hazard was observed on it under its current launch identity (" + reasons(r,
          dev.cotenant.api.ReasonRole.OBSERVATION) + "), so it cannot share a backend until the server is fixed (a"
          + " new build is a new identity): see cotenant hazards list";
    }
    if (r.strength() == dev.cotenant.api.Strength.DISQUALIFIED) {
      return "it cannot share a backend (" + reasons(r, dev.cotenant.api.ReasonRole.DISQUALIFYING_FACT) + ")";
    }
    return "to share it: cotenant share " + r.name() + ", then route --refresh";
  }

  private static String reasons(dev.cotenant.gateway.rows.Row r, dev.cotenant.api.ReasonRole role) {
    return r.verdict().reasons().stream().filter(x -> x.code().role() == role).map(Output::reason)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** Which shim entries routed to the installed jar start, before anything is written ({@link NativeShim#plan}). */
  private NativeShim.Choice choose(Installed installed) throws UsageException {
    if (shim.equals("jvm")) {
      return NativeShim.Choice.jvm("--shim jvm");
    }
    NativeShim.Choice c = NativeShim.plan(installed.shim(), lib());
    if (!c.isNative() && shim.equals("native")) {
      throw new UsageException("--shim native: " + c.why());
    }
    return c;
  }

  private Path lib() throws UsageException {
    return cotenantHome().lib();
  }

  private ObjectNode json(RoutePlan plan, String shown, Sidecar sidecar, boolean sidecarRemoved,
      NativeShim.@org.jspecify.annotations.Nullable Choice choice) {
    ObjectNode o = Output.object();
    o.put("config", shown);
    o.put("sidecar", sidecar.file().toString());
    o.put("undo", undo);
    o.put("applied", apply);
    if (undo) {
      names(o.putArray("restored"), plan.of(Kind.RESTORED));
      reasons(o.putArray("left"), plan.of(Kind.LEFT));
      o.put("sidecarRemoved", sidecarRemoved);
    } else {
      names(o.putArray("routed"), plan.of(Kind.ROUTED));
      names(o.putArray("alreadyRouted"), plan.of(Kind.ALREADY_ROUTED));
      reasons(o.putArray("notRouted"), plan.of(Kind.NOT_ROUTED));
      if (choice != null) {
        ObjectNode s = o.putObject("shim");
        if (choice.isNative()) {
          s.put("kind", "native").put("path", String.valueOf(choice.path()));
        } else {
          s.put("kind", "jvm").put("reason", choice.why());
        }
      }
    }
    if (!apply) {
      o.put("content", plan.text());
    }
    return o;
  }

  private static void names(ArrayNode into, List<Outcome> outcomes) {
    outcomes.forEach(x -> into.add(x.name()));
  }

  private static void reasons(ArrayNode into, List<Outcome> outcomes) {
    outcomes.forEach(x -> into.addObject().put("name", x.name()).put("reason", x.reason()));
  }

  private void summary(PrintWriter out, RoutePlan plan, String shown, Sidecar sidecar, boolean sidecarRemoved, boolean changes,
      NativeShim.@org.jspecify.annotations.Nullable Choice choice) {
    String kept = Output.cell(sidecar.file().toString());
    out.println((undo ? (apply ? "restored " : "undo plan for ") : (apply ? "routed " : "route plan for "))
        + Output.cell(shown) + ":");
    out.println("  sidecar:         " + kept);
    if (undo) {
      out.println("  restored:        " + list(plan.of(Kind.RESTORED)));
      printReasons(out, "  left:            ", plan.of(Kind.LEFT));
      if (sidecarRemoved) {
        out.println("  sidecar removed: no original left in it");
      }
    } else {
      out.println("  routed:          " + list(plan.of(Kind.ROUTED)));
      out.println("  already routed:  " + list(plan.of(Kind.ALREADY_ROUTED)));
      printReasons(out, "  not routed:      ", plan.of(Kind.NOT_ROUTED));
      if (choice != null) {
        out.println("  shim:            " + (choice.isNative()
            ? "native, " + Output.cell(String.valueOf(choice.path()))
            : "JVM (" + Output.cell(choice.why()) + ")"));
      }
    }
    if (!apply) {
      out.println(changes || !plan.originals().isEmpty()
          ? "nothing written; rerun with " + (undo ? "--undo --apply" : "--apply") + " to write " + Output.cell(shown)
              + " and the sidecar"
          : "nothing to change");
    }
  }

  private static void printReasons(PrintWriter out, String label, List<Outcome> outcomes) {
    if (outcomes.isEmpty()) {
      out.println(label + "(none)");
      return;
    }
    String pad = " ".repeat(label.length());
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      out.println((i == 0 ? label : pad) + Output.cell(o.name()) + " (" + Output.cell(o.reason()) + ")");
    }
  }

  private static String list(List<Outcome> outcomes) {
    return outcomes.isEmpty() ? "(none)" : outcomes.stream().map(o -> Output.cell(o.name())).collect(Collectors.joining(", "));
  }

  /** The home to hand to {@code connect}, when {@code COTENANT_HOME} names one. */
  private Optional<Path> explicitHome() throws UsageException {
    String set = context().env().getOrDefault(RecordsDirectory.HOME_ENV, "").strip();
    boolean unset = set.isEmpty() || set.equals(".") || set.equals("./");
    return unset ? Optional.empty() : Optional.of(cotenantHome().dir());
  }

  /**
   * The running jar and its installed copy in the Cotenant home, {@code lib/cotenant-<the first 16
   * hex digits of its SHA-256>.jar}: routed entries start that copy, so a {@code mvn clean}, a
   * rebuild or a moved checkout does not break a client. The copy is written (atomically, once per
   * content) only when {@code --apply} routes something; so is the native shim the jar holds.
   *
   * @param shim the native shim the jar holds for this machine, if any
   */
  private record Installed(String javaCommand, Path jar, String digest, Path copy, Optional<byte[]> shim) {
    /** The native shim's entry when {@code choice} is native, else the JVM shim's. */
    Launch launch(NativeShim.Choice choice) {
      return choice.isNative() ? Launch.nativeShim(choice.path(), javaCommand, copy) : Launch.jar(javaCommand, copy);
    }

    /**
     * Makes a missing home 0700, {@code lib/} 0700, and checks the copy by its whole SHA-256 and its owner
     * and mode ({@link PrivateFiles#whyUntrusted}); writes it again (0600) unless both hold.
     *
     * @throws java.io.IOException when it cannot be written, or others could change it even so
     */
    void install(CotenantHome home) throws java.io.IOException {
      home.ensure();
      PrivateFiles.directory(copy.getParent());
      if (PrivateFiles.whyUntrusted(copy).isEmpty() && digest.equals(sha256(copy))) {
        return;
      }
      AtomicFiles.replace(copy, AtomicFiles.OWNER_ONLY, out -> Files.copy(jar, out));
      Optional<String> why = PrivateFiles.whyUntrusted(copy);
      if (why.isPresent()) {
        throw new java.io.IOException("cannot install " + copy + " where only you could change it: " + why.get());
      }
    }
  }

  /** The SHA-256 of {@code file}'s content, in hex. */
  static String sha256(Path file) throws java.io.IOException {
    try (java.io.InputStream in = Files.newInputStream(file)) {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n = in.read(buf); n > 0; n = in.read(buf)) {
        sha.update(buf, 0, n);
      }
      return java.util.HexFormat.of().formatHex(sha.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** Where routed entries run {@code connect} from when no {@code --launcher} is given. */
  private Installed installed() throws UsageException {
    Optional<Path> jar = runningJar();
    if (jar.isEmpty()) {
      throw new UsageException("not running from cotenant.jar, so there is no jar for the client to start; "
          + "name the command with --launcher PATH (e.g. --launcher /path/to/cotenant)");
    }
    String digest;
    try {
      digest = sha256(jar.get());
    } catch (java.io.IOException e) {
      throw new UsageException("cannot read the running jar " + jar.get() + ": " + e.getMessage());
    }
    String javaCommand = ProcessHandle.current().info().command().orElse("java");
    Optional<byte[]> shimBinary;
    try {
      shimBinary = NativeShim.bundled();
    } catch (java.io.IOException e) {
      throw new UsageException("cannot read the native shim in the running jar " + jar.get() + ": " + e.getMessage());
    }
    return new Installed(javaCommand, jar.get(), digest, lib().resolve("cotenant-" + digest.substring(0, 16) + ".jar"),
        shimBinary);
  }

  /** How routed entries start {@code connect}: {@code --launcher}, else the installed copy of this jar. */
  private Launch launch() throws UsageException {
    if (launcher != null) {
      if (launcher.isBlank()) {
        throw new UsageException("--launcher is empty; name the command that runs cotenant (e.g. the ./cotenant script)");
      }
      boolean path = launcher.contains("/") || launcher.contains(java.io.File.separator);
      String command = path ? context().resolve(launcher).toString() : launcher;
      if (path && !Files.isExecutable(Path.of(command))) {
        context().err().println("cotenant: warning: the launcher " + Output.cell(command)
            + " is not an executable file; the client will fail to start it");
      }
      return Launch.launcher(command);
    }
    Installed i = installed();
    return i.launch(choose(i));
  }

  private static Optional<Path> runningJar() {
    try {
      CodeSource source = RouteCommand.class.getProtectionDomain().getCodeSource();
      if (source == null || source.getLocation() == null) {
        return Optional.empty();
      }
      Path p = Path.of(source.getLocation().toURI());
      return Files.isRegularFile(p) && p.getFileName().toString().endsWith(".jar")
          ? Optional.of(p.toAbsolutePath().normalize())
          : Optional.empty();
    } catch (URISyntaxException | IllegalArgumentException | SecurityException | java.nio.file.FileSystemNotFoundException e) {
      return Optional.empty();
    }
  }
}
