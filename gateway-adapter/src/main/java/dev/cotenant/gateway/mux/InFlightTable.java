package dev.cotenant.gateway.mux;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.rpc.ErrorCode;
import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.RequestId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The client calls in flight at one backend (rules 1 and 2 of {@link Multiplexer}): each call
 * under its session and the client's {@link RequestId}, and under the backend-unique progress
 * token it was given, if any. The backend session keeps its own table of the same calls under
 * the ids it wrote; this one is the multiplexer's only one. Not thread-safe: every method is
 * called under the multiplexer's routing lock.
 */
final class InFlightTable {
  /** One client request forwarded to the backend. */
  static final class Call {
    final Channel channel;
    final RequestId id;
    final @Nullable String backendToken;
    final @Nullable Object clientToken;
    /** Null until the request is written. */
    @Nullable CompletableFuture<Map<String, Object>> future;
    boolean cancelled;
    String cancelReason = "";

    Call(Channel channel, RequestId id, @Nullable String backendToken, @Nullable Object clientToken) {
      this.channel = channel;
      this.id = id;
      this.backendToken = backendToken;
      this.clientToken = clientToken;
    }
  }

  private static final String TOKEN_PREFIX = "cotenant-";

  private final Map<Channel, Map<RequestId, Call>> calls = new HashMap<>();
  /** Backend progress token to the call that owns it. */
  private final Map<String, Call> progressOwners = new HashMap<>();
  private final AtomicLong progressTokens = new AtomicLong();

  /** A new backend-unique progress token ({@code "cotenant-<n>"}); thread-safe. */
  String newProgressToken() {
    return TOKEN_PREFIX + progressTokens.incrementAndGet();
  }

  /** True when {@code token} is one this table issued ({@code cotenant-N}, N given out already); thread-safe. */
  boolean issued(String token) {
    if (!token.startsWith(TOKEN_PREFIX) || token.length() > 29) {
      return false;
    }
    try {
      long n = Long.parseLong(token.substring(TOKEN_PREFIX.length()));
      return n >= 1 && n <= progressTokens.get();
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Enters {@code call}, or says why not: the answer refusing it (its id is in flight on its
   * session already, or the session awaits {@code max} answers), null once entered.
   */
  @Nullable Map<String, Object> enter(Call call, int max) {
    Map<RequestId, Call> mine = calls.computeIfAbsent(call.channel, k -> new LinkedHashMap<>());
    if (mine.containsKey(call.id)) {
      return Envelope.error(call.id, ErrorCode.INVALID_REQUEST, "Invalid Request: id "
          + LogSafe.escape(String.valueOf(call.id.json()), 40) + " is already in flight on this session");
    }
    if (mine.size() >= max) {
      return Envelope.error(call.id, ErrorCode.INTERNAL_ERROR, "too many calls in flight: this session already awaits "
          + mine.size() + " answers (" + MuxSettings.MAX_IN_FLIGHT_PER_SESSION + ")");
    }
    mine.put(call.id, call);
    if (call.backendToken != null) {
      progressOwners.put(call.backendToken, call);
    }
    return null;
  }

  /** Takes {@code call} out once answered; false when it was no longer in (cancelled, its session gone, the backend ended). */
  boolean taken(Call call) {
    dropToken(call);
    Map<RequestId, Call> mine = calls.get(call.channel);
    return mine != null && mine.remove(call.id, call);
  }

  /** Takes the call {@code id} of {@code channel} out as cancelled; null when it is not in flight. */
  @Nullable Call cancel(Channel channel, RequestId id, String reason) {
    Map<RequestId, Call> mine = calls.get(channel);
    Call c = mine == null ? null : mine.remove(id);
    if (c != null) {
      c.cancelled = true;
      c.cancelReason = reason;
      dropToken(c);
    }
    return c;
  }

  /** Takes every call of {@code channel} out as cancelled; returns the futures of those written. */
  List<CompletableFuture<Map<String, Object>>> leave(Channel channel, String reason) {
    List<CompletableFuture<Map<String, Object>>> written = new ArrayList<>();
    Map<RequestId, Call> mine = calls.remove(channel);
    if (mine != null) {
      for (Call c : mine.values()) {
        c.cancelled = true;
        c.cancelReason = reason;
        dropToken(c);
        if (c.future != null) {
          written.add(c.future);
        }
      }
    }
    return written;
  }

  /** Takes every call out (the backend ended) and returns them. */
  List<Call> drain() {
    List<Call> all = new ArrayList<>();
    calls.values().forEach(m -> all.addAll(m.values()));
    calls.clear();
    progressOwners.clear();
    return all;
  }

  /** The futures of every call written. */
  List<CompletableFuture<Map<String, Object>>> written() {
    List<CompletableFuture<Map<String, Object>>> all = new ArrayList<>();
    for (Map<RequestId, Call> m : calls.values()) {
      for (Call c : m.values()) {
        if (c.future != null) {
          all.add(c.future);
        }
      }
    }
    return all;
  }

  /** The call that owns the backend progress token {@code token}; null when none does. */
  @Nullable Call progressOwner(String token) {
    return progressOwners.get(token);
  }

  /** The sessions with a call in flight. */
  int busySessions() {
    int n = 0;
    for (Map<RequestId, Call> m : calls.values()) {
      if (!m.isEmpty()) {
        n++;
      }
    }
    return n;
  }

  private void dropToken(Call c) {
    if (c.backendToken != null) {
      progressOwners.remove(c.backendToken, c);
    }
  }
}
