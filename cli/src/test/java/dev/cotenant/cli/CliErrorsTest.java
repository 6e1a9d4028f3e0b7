package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.gateway.providers.ProviderLoadingException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * What the CLI says when a command fails: one line for people, the file and the reason when it
 * could not write, the way out, and the stack trace only with {@code --debug}.
 */
class CliErrorsTest {
  private static final String ELSEWHERE = "; put the records elsewhere with --records-dir DIR or the COTENANT_HOME "
      + "environment variable";

  @TempDir Path tmp;

  private record Handled(int code, String err) {}

  /** {@code ex} as the command parsed from {@code args} would have thrown it. */
  private Handled handle(Exception ex, String... args) throws Exception {
    StringWriter err = new StringWriter();
    Cli cli = new Cli(CliContext.of(new PrintWriter(new StringWriter()), new PrintWriter(err, true), Map.of(), tmp, tmp));
    CommandLine root = cli.commandLine();
    ParseResult parsed = root.parseArgs(args);
    CommandLine command = parsed.subcommand() == null ? root : parsed.subcommand().commandSpec().commandLine();
    int code = root.getExecutionExceptionHandler().handleExecutionException(ex, command, parsed);
    return new Handled(code, err.toString());
  }

  @Test
  void aFileTheCliCannotWriteIsOneLineWithTheFileTheReasonAndTheWayOut() throws Exception {
    Map<Exception, String> cases = Map.of(
        new UncheckedIOException(new AccessDeniedException("/r/a.json")), "cannot write /r/a.json: permission denied",
        new NotDirectoryException("/r"), "cannot write /r: not a directory",
        new FileAlreadyExistsException("/r/b"), "cannot write /r/b: a file is in the way",
        new FileSystemException("/r/c", null, "Read-only file system"), "cannot write /r/c: Read-only file system",
        new FileSystemException(null), "cannot write a file: FileSystemException");
    for (Map.Entry<Exception, String> c : cases.entrySet()) {
      Handled h = handle(c.getKey(), "assess", "mcp.json");
      assertEquals(Cli.EXIT_INTERNAL, h.code(), h.err());
      assertEquals("cotenant: " + c.getValue() + ELSEWHERE + "\n", h.err(), c.getKey().toString());
    }
  }

  @Test
  void withDebugTheSameFailureIsAnInternalErrorWithItsStackTrace() throws Exception {
    Handled h = handle(new UncheckedIOException(new AccessDeniedException("/r/a.json")), "assess", "mcp.json", "--debug");
    assertEquals(Cli.EXIT_INTERNAL, h.code());
    List<String> lines = h.err().lines().toList();
    assertEquals("cotenant: internal error: AccessDeniedException: /r/a.json", lines.get(0));
    assertTrue(lines.get(1).startsWith("java.io.UncheckedIOException"), h.err());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("\tat ")), h.err());
  }

  @Test
  void anyOtherFailureIsOneLineThatOffersTheStackTrace() throws Exception {
    Handled plain = handle(new IllegalStateException("it broke\nbadly"), "assess", "mcp.json");
    assertEquals(Cli.EXIT_INTERNAL, plain.code());
    assertEquals("cotenant: internal error: IllegalStateException: it broke\\nbadly (rerun with --debug for the stack "
        + "trace)\n", plain.err());
    Handled io = handle(new UncheckedIOException("reading", new IOException("gone")), "assess", "mcp.json");
    assertEquals("cotenant: a file could not be read or written: gone\n", io.err(),
        "the I/O failure inside is named, not its wrapper, and is no internal error");
    Handled full = handle(new UncheckedIOException("writing", new IOException("No space left on device")), "assess",
        "mcp.json");
    assertEquals(Cli.EXIT_INTERNAL, full.code());
    assertEquals("cotenant: the disk is full (No space left on device): nothing was replaced, since every record and"
        + " configuration is written to a temporary file first; free some space and try again\n", full.err());
  }

  @Test
  void aProviderThatCannotBeLoadedIsItsMessageAlone() throws Exception {
    Handled h = handle(new ProviderLoadingException("no RecordStoreProvider named 'pg'; discovered: [file, postgres]"),
        "assess", "mcp.json");
    assertEquals(Cli.EXIT_INTERNAL, h.code());
    assertEquals("cotenant: no RecordStoreProvider named 'pg'; discovered: [file, postgres] (rerun with --debug for the "
        + "stack trace)\n", h.err());
  }

  @Test
  void whatACommandWroteReachesItsStreamsWhenTheRunEnds() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // Buffered writers that flush only when told to.
    Cli cli = new Cli(CliContext.of(new PrintWriter(new BufferedWriter(out)), new PrintWriter(new BufferedWriter(err)),
        Map.of(), tmp, tmp));
    assertEquals(Cli.EXIT_USAGE, cli.run("assess", "missing.json"));
    assertTrue(err.toString().startsWith("cotenant: missing.json"), err.toString());
    assertEquals(0, cli.run("hazards", "list", "--json", "--records-dir", tmp.resolve("records").toString()));
    assertTrue(out.toString().startsWith("{"), out.toString());
  }
}
