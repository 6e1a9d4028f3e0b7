package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The guard's edges, without a server: what {@link McpHttpGuardTest#loopbackOriginsAndHostsAreToldApart}
 * leaves out. Each case names the mutant of {@link HttpGuard} it kills.
 */
class HttpGuardTest {
  @Test
  void anOriginWithAPathAQueryAFragmentOrBadSyntaxIsNotALoopbackOrigin() {
    // Mutants: the path check negated (line 121), and the syntax error's "false" made true (uncovered).
    assertTrue(HttpGuard.isLoopbackOrigin("http://localhost/"), "a bare slash is no path");
    for (String o : List.of("http://localhost/mcp", "http://localhost?x=1", "http://localhost#top", "http://local host",
        "http://localhost:80/../")) {
      assertFalse(HttpGuard.isLoopbackOrigin(o), o);
    }
  }

  @Test
  void aHostHeaderIsAHostAndAtMostAColonAndFiveDigits() {
    // Mutants: isPort's length bounds (> 1 at >= 1, <= 6 at < 6), the unclosed bracket's and the bracket's tail's
    // "false" made true (uncovered).
    assertTrue(HttpGuard.isLoopbackHost("localhost:65535"), "five digits");
    assertTrue(HttpGuard.isLoopbackHost("[::1]:65535"));
    for (String h : List.of("localhost:", "localhost:123456", "[::1]:", "[::1", "[::1]x", "[::1]:80x")) {
      assertFalse(HttpGuard.isLoopbackHost(h), h);
    }
  }

  @Test
  void aTokenIsVisibleAsciiFromBangToTilde() {
    // Mutants: the token's character bounds (> 0x20 at >= 0x20, < 0x7f at <= 0x7f) and the check returning true.
    new HttpGuard("!~");
    for (String bad : List.of("with space", " leading", "tab\there", "del\u007f", "caf\u00e9")) {
      assertThrows(IllegalArgumentException.class, () -> new HttpGuard(bad), bad);
    }
  }
}
