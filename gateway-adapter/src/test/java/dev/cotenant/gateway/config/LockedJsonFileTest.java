package dev.cotenant.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's configuration file rewritten under its lock: the layout the user chose is kept, a file
 * with comments or one that changed meanwhile is never written, and nothing is written when
 * nothing changed. Written after a mutation run found each of these unchecked in this module
 * (each test names the mutants it kills).
 */
class LockedJsonFileTest {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text);
  }

  private static void addB(LockedJsonFile f) throws ConfigException {
    f.update(false, root -> root.put("b", 2));
  }

  @Test
  void aRewriteKeepsTheIndentationColonSpacingLineEndingsAndFinalNewlineOfTheFile() throws Exception {
    // Kills JsonLayout.of, each of its conditions negated (the indentation found or not, a tab or
    // spaces, CRLF or LF, a final newline or not), LockedJsonFile.update with `exists` negated in
    // the layout's choice (the default layout for an existing file), and serialise with the
    // final-newline test negated.
    Path tabs = write("tabs.json", "{\r\n\t\"a\" : 1\r\n}");
    addB(new LockedJsonFile(tabs));
    assertEquals("{\r\n\t\"a\" : 1,\r\n\t\"b\" : 2\r\n}", Files.readString(tabs));

    Path spaces = write("spaces.json", "{\n    \"a\": 1\n}\n");
    addB(new LockedJsonFile(spaces));
    assertEquals("{\n    \"a\": 1,\n    \"b\": 2\n}\n", Files.readString(spaces));
  }

  @Test
  void aFileWithCommentsIsNeverRewrittenAndTheErrorSaysWhy() throws Exception {
    // Kills update with `exists && hasComments(text)` negated, and hasComments returning false.
    String text = "{\n  // the user's note\n  \"a\": 1\n}\n";
    Path f = write("commented.json", text);
    ConfigException e = assertThrows(ConfigException.class, () -> addB(new LockedJsonFile(f)));
    assertTrue(e.problem().startsWith("holds comments, which rewriting it would lose; nothing was written"), e.problem());
    assertEquals(text, Files.readString(f));
  }

  @Test
  void aTransactionThatChangesNothingWritesNothing() throws Exception {
    // Kills update with `!root.equals(before)` negated: the file would be rewritten in the
    // default layout though nothing changed.
    String text = "{\"a\":1}";
    Path f = write("compact.json", text);
    assertEquals("read", new LockedJsonFile(f).update(false, root -> "read"));
    assertEquals(text, Files.readString(f));
  }

  @Test
  void aMissingFileIsCreatedOnlyWhenAskedAndAnExistingOneIsReadEvenThen() throws Exception {
    // Kills read with `createIfMissing && !Files.exists(file)` negated, and update with the
    // `exists` test of the text to read negated (a missing file read).
    Path missing = dir.resolve("new.json");
    ConfigException e = assertThrows(ConfigException.class, () -> addB(new LockedJsonFile(missing)));
    assertEquals("no such file", e.problem());
    assertFalse(Files.exists(missing));
    new LockedJsonFile(missing).update(true, root -> root.put("a", 1));
    assertEquals("{\n  \"a\": 1\n}\n", Files.readString(missing));
    new LockedJsonFile(missing).update(true, root -> root.put("b", 2));
    assertEquals("{\n  \"a\": 1,\n  \"b\": 2\n}\n", Files.readString(missing), "the existing content was kept");
  }

  @Test
  void aTextReplacementHappensOnlyOverTheTextItWasMadeFor() throws Exception {
    // Kills replaceText with `!now.equals(expected)` negated and without its write.
    Path f = write("edit.json", "{\"a\": 1}\n");
    LockedJsonFile locked = new LockedJsonFile(f);
    locked.replaceText("{\"a\": 1}\n", "{\"a\": 2}\n");
    assertEquals("{\"a\": 2}\n", Files.readString(f));
    ConfigException e = assertThrows(ConfigException.class, () -> locked.replaceText("{\"a\": 1}\n", "{\"a\": 3}\n"));
    assertTrue(e.problem().startsWith("changed since it was read; nothing was written"), e.problem());
    assertEquals("{\"a\": 2}\n", Files.readString(f));
  }

  @Test
  void aFileReachedThroughALinkIsWrittenAtItsTargetWithItsPermissionBits() throws Exception {
    // Kills ConfigFileLock.replace with the link test negated (the link replaced by a file), and
    // with either condition of the permission read or the permission write negated (the new file
    // gets the temporary file's 0600).
    Path target = write("target.json", "{\n  \"a\": 1\n}\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r-----"));
    Path link = Files.createSymbolicLink(dir.resolve("link.json"), target);
    addB(new LockedJsonFile(link));
    assertTrue(Files.isSymbolicLink(link), "the link is still a link");
    assertEquals("{\n  \"a\": 1,\n  \"b\": 2\n}\n", Files.readString(target));
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
    try (var left = Files.list(dir)) {
      assertEquals(2, left.count(), "no temporary file is left beside it");
    }
  }

  /**
   * A user's edit that lands while the new text is being made (an editor takes no lock) is kept:
   * the file is read again before the rename, and the transaction runs again on the edited file.
   * The transaction itself stands in for the editor on its first run. Before, the edit was
   * overwritten every time.
   */
  @Test
  void anEditMadeWhileTheFileIsWrittenIsKeptAndTheChangeAppliedToIt() throws Exception {
    Path f = write("edited.json", "{\n  \"a\": 1\n}\n");
    int[] runs = {0};
    new LockedJsonFile(f).update(false, root -> {
      if (runs[0]++ == 0) {
        try {
          Files.writeString(f, "{\n  \"a\": 1,\n  \"mine\": true\n}\n");
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      }
      return root.put("b", 2);
    });
    assertEquals(2, runs[0], "run again on the edited file");
    assertEquals("{\n  \"a\": 1,\n  \"mine\": true,\n  \"b\": 2\n}\n", Files.readString(f));

    // An editor that keeps writing: after three runs nothing is written, and the error says so.
    Path busy = write("busy.json", "{}");
    int[] n = {0};
    ConfigException e = assertThrows(ConfigException.class, () -> new LockedJsonFile(busy).update(false, root -> {
      try {
        Files.writeString(busy, "{\"edit\": " + (++n[0]) + "}");
      } catch (IOException x) {
        throw new AssertionError(x);
      }
      return root.put("b", 2);
    }));
    assertTrue(e.getMessage().contains("kept changing while it was written; nothing was written"), e.getMessage());
    assertEquals("{\"edit\": 3}", Files.readString(busy), "the last edit is there, untouched");
  }

  /** The check before the rename, as {@code replaceText} uses it: a changed file is left as it is. */
  @Test
  void aReplacementIsNotRenamedOverAFileThatChangedSinceItWasRead() throws Exception {
    Path f = write("r.json", "{\"a\": 1}");
    try (ConfigFileLock held = ConfigFileLock.hold(f)) {
      assertThrows(ConfigFileLock.ChangedMeanwhile.class,
          () -> held.replace(f, "{\"b\": 2}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
              "{\"a\": 0}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      assertEquals("{\"a\": 1}", Files.readString(f));
      held.replace(f, "{\"b\": 2}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
          "{\"a\": 1}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertEquals("{\"b\": 2}", Files.readString(f));
    }
    try (java.util.stream.Stream<Path> left = Files.list(dir)) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary file is left");
    }
  }
}
