package dev.cotenant.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Arrays;

/** The {@code cotenant} executable: runs {@link Cli} on this process's streams and exits with its status. */
public final class Main {
  private Main() {}

  /** Runs the command line and exits. */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("connect")) {
      // The shim: no CLI framework, no logging set-up, no JSON data binding.
      PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true);
      java.util.Optional<Integer> status = dev.cotenant.cli.daemon.Connect.fastPath(args, System.getenv(),
          dev.cotenant.gateway.records.RecordsDirectory.userHome(System.getenv()), Path.of("").toAbsolutePath(), err);
      if (status.isPresent()) {
        err.flush();
        System.exit(status.get());
      }
    }
    // The CLI's own logging (slf4j-simple, bundled in the runnable jar only): warnings and errors
    // on standard error, so standard output stays a table or JSON. For people: a warning is one
    // line "cotenant: warning: ...", without logger or thread names, and each is printed once per
    // run. --debug shows debug lines with their logger and thread. `serve` logs INFO lines too.
    boolean debug = Arrays.asList(args).contains("--debug");
    // The daemon's standard error is its log (daemon.log when a shim started it): INFO lines too
    // (each session's placement and why), each with its time.
    boolean serving = args.length > 0 && args[0].equals("serve");
    setDefault("org.slf4j.simpleLogger.defaultLogLevel", debug ? "debug" : serving ? "info" : "warn");
    setDefault("org.slf4j.simpleLogger.logFile", "System.err");
    if (serving) {
      setDefault("org.slf4j.simpleLogger.showDateTime", "true");
      setDefault("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");
    }
    if (!debug) {
      setDefault("org.slf4j.simpleLogger.showThreadName", "false");
      setDefault("org.slf4j.simpleLogger.showLogName", "false");
      setDefault("org.slf4j.simpleLogger.showShortLogName", "false");
      setDefault("org.slf4j.simpleLogger.levelInBrackets", "false");
      System.setErr(new PrintStream(new OnceEachWarning(new FileOutputStream(FileDescriptor.err)), true, Charset.defaultCharset()));
      // Libraries that log through java.util.logging (the PostgreSQL driver) would print two-line
      // records of their own; what fails reaches the operator as the error of the command instead.
      java.util.logging.LogManager.getLogManager().reset();
      java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    }
    Charset cs = Charset.defaultCharset();
    PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, cs), true);
    PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, cs), true);
    CliContext context =
        new CliContext(
            out,
            err,
            System.getenv(),
            Path.of("").toAbsolutePath(),
            dev.cotenant.gateway.records.RecordsDirectory.userHome(System.getenv()),
            b -> b,
            System.console() != null);
    int status = new Cli(context).run(args);
    out.flush();
    err.flush();
    System.exit(status);
  }

  private static void setDefault(String key, String value) {
    System.setProperty(key, System.getProperty(key, value));
  }
}
