package dev.cotenant.examples.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.rpc.ErrorCode;
import io.modelcontextprotocol.spec.McpSchema;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The daemon's own JSON-RPC error codes collide with no code MCP or one of its SDKs gives a
 * meaning, so a client never reads a daemon's error as a server's: the MCP Java SDK's {@code
 * McpSchema.ErrorCodes} read by reflection (whatever this build's SDK defines), and the codes of
 * the other SDKs that docs/daemon.md names. Kills {@code BUSY = -32002} (MCP's "resource not
 * found", as it was) and any own code moved onto one of those.
 */
class McpErrorCodeCollisionTest {
  /** Codes the other SDKs give a meaning (docs/daemon.md, "Error codes"). */
  private static final Map<Integer, String> OTHER_SDKS = Map.of(
      -32000, "connection closed (TypeScript SDK), overloaded (Go SDK's JSON-RPC)",
      -32001, "request timeout (TypeScript SDK, raised in the client), unknown (Go SDK's JSON-RPC)",
      -32002, "resource not found (MCP 2025-06-18)",
      -32003, "client closing (Go SDK's JSON-RPC)",
      -32004, "server closing (Go SDK's JSON-RPC)",
      -32042, "URL elicitation required (MCP 2025-11-25)",
      -32800, "request cancelled (LSP-style SDKs)");

  /** The codes Cotenant takes over from MCP peers with the same meaning (docs/daemon.md). */
  private static final Set<ErrorCode> ADOPTED = Set.of(ErrorCode.SESSION_NOT_FOUND, ErrorCode.UNSUPPORTED_PROTOCOL_VERSION);

  private static Map<Integer, String> sdkCodes() throws IllegalAccessException {
    Map<Integer, String> codes = new TreeMap<>();
    for (Field f : McpSchema.ErrorCodes.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
        codes.put(f.getInt(null), f.getName());
      }
    }
    return codes;
  }

  @Test
  void theDaemonsOwnCodesAreNoneOfMcpsAndJsonRpcsKeepTheirNames() throws Exception {
    Map<Integer, String> sdk = sdkCodes();
    assertTrue(sdk.containsValue("RESOURCE_NOT_FOUND"), "the SDK defines " + sdk);
    for (ErrorCode c : ErrorCode.values()) {
      if (sdk.containsValue(c.name())) {
        // Inherited from JSON-RPC: the same name has the same number.
        assertEquals(c.name(), sdk.get(c.code()), c + " is " + c.code() + " but the SDK's " + c.name() + " is another");
        continue;
      }
      if (ADOPTED.contains(c)) {
        continue;
      }
      assertFalse(sdk.containsKey(c.code()), c + " (" + c.code() + ") is the MCP SDK's " + sdk.get(c.code()));
      assertFalse(OTHER_SDKS.containsKey(c.code()), c + " (" + c.code() + ") is " + OTHER_SDKS.get(c.code()));
      assertTrue(c.code() <= -32000 && c.code() >= -32099, c + " is outside the range JSON-RPC leaves to implementations");
    }
  }

  /** The error table of docs/daemon.md lists each code with the number the code has; kills a table left behind. */
  @Test
  void theDocumentedTableHasTheNumbers() throws Exception {
    String doc = Files.readString(DaemonFixture.ROOT.resolve("docs/daemon.md"));
    for (ErrorCode c : ErrorCode.values()) {
      assertTrue(doc.contains("| `" + c.code() + "` | `" + c.name() + "` |"), c + " with " + c.code() + " in docs/daemon.md");
    }
  }
}
