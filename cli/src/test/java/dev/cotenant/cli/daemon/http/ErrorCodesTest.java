package dev.cotenant.cli.daemon.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.spi.rpc.ErrorCode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The daemon's own JSON-RPC error codes reach the same clients (over the socket and over HTTP):
 * each means one thing, so no two share a number.
 */
class ErrorCodesTest {
  @Test
  void everyCodeTheDaemonAnswersWithHasANumberOfItsOwn() {
    List<Integer> codes = List.of(ErrorCode.CALL_INTERRUPTED.code(), ErrorCode.BUSY.code(), ErrorCode.NO_BACKEND.code(),
        ErrorCode.REFUSED.code(), ErrorCode.SESSION_NOT_FOUND.code());
    Set<Integer> distinct = new HashSet<>(codes);
    assertEquals(codes.size(), distinct.size(), "a number used twice: " + codes);
  }
}
