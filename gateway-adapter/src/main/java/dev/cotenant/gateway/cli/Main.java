package dev.cotenant.gateway.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Arrays;

/** The {@code cotenant} executable: runs {@link Cli} on this process's streams and exits with its status. */
public final class Main {
  private Main() {}

  /** Runs the command line and exits. */
  public static void main(String[] args) {
    // The CLI's own logging (slf4j-simple, bundled in the runnable jar only): warnings and errors
    // on standard error, so standard output stays a table or JSON; --debug shows debug lines.
    String level = Arrays.asList(args).contains("--debug") ? "debug" : "warn";
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", level));
    System.setProperty("org.slf4j.simpleLogger.logFile", System.getProperty("org.slf4j.simpleLogger.logFile", "System.err"));
    Charset cs = Charset.defaultCharset();
    PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, cs), true);
    PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, cs), true);
    CliContext context =
        new CliContext(
            out,
            err,
            System.getenv(),
            Path.of("").toAbsolutePath(),
            Path.of(System.getProperty("user.home")),
            b -> b,
            System.console() != null);
    int status = new Cli(context).run(args);
    out.flush();
    err.flush();
    System.exit(status);
  }
}
