package dev.cotenant.fleet.redis;

import dev.cotenant.spi.ConcurrencyLimiter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A fleet-wide {@code maxConcurrent}: one semaphore per server, kept in Redis as a sorted set of
 * leases (member: a random permit id; score: the lease's expiry in ms of Redis's own clock).
 *
 * <p>An acquire is one Lua script: drop the expired leases, and add a lease when fewer than
 * {@code maxConcurrent} remain. A caller that gets none retries with a short, jittered backoff
 * (5 ms doubling to 50 ms) until its timeout. A background daemon thread renews the leases of the
 * permits this process holds every lease/3, so a long call keeps its slot; a holder that dies
 * stops renewing, and its slot returns when its lease runs out. Closing a permit (exactly once,
 * idempotent) stops its renewal and removes its lease.
 *
 * <p><b>Fails closed:</b> when Redis cannot be reached or answers with an error, {@link #acquire}
 * throws {@link IllegalStateException} rather than admit a call without a limit. A renewal or
 * release that fails is only logged (once per burst of failures): a lease not removed runs out.
 *
 * <p>Thread-safe. {@link #close()} stops the renewals and the connection pool.
 */
public final class RedisLimiter implements ConcurrencyLimiter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLimiter.class);

  /** Milliseconds of Redis's own clock, so the callers' clocks never matter. */
  private static final String NOW = """
      if redis.replicate_commands then pcall(redis.replicate_commands) end
      local t = redis.call('TIME')
      local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
      """;

  /**
   * KEYS[1] the server's set; ARGV: max, lease ms, permit id, key ttl ms. Returns 1 when the
   * permit holds a lease. Idempotent for one permit id, so a retry after a lost reply takes no
   * second slot.
   */
  static final String ACQUIRE = NOW + """
      local key = KEYS[1]
      local expiry = now + tonumber(ARGV[2])
      if redis.call('ZSCORE', key, ARGV[3]) then
        redis.call('ZADD', key, expiry, ARGV[3])
        redis.call('PEXPIRE', key, ARGV[4])
        return 1
      end
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
      if redis.call('ZCARD', key) < tonumber(ARGV[1]) then
        redis.call('ZADD', key, expiry, ARGV[3])
        redis.call('PEXPIRE', key, ARGV[4])
        return 1
      end
      return 0
      """;

  /**
   * KEYS[1] the server's set; ARGV: lease ms, key ttl ms, max, permit ids. Extends the leases
   * still present (an expired lease nobody removed still held its slot, so it is renewed);
   * re-claims a missing one (a restarted Redis) when a slot is free; returns the ids of leases lost.
   */
  static final String RENEW = NOW + """
      local key = KEYS[1]
      local expiry = now + tonumber(ARGV[1])
      local missing = {}
      for i = 4, #ARGV do
        if redis.call('ZSCORE', key, ARGV[i]) then
          redis.call('ZADD', key, expiry, ARGV[i])
        else
          missing[#missing + 1] = ARGV[i]
        end
      end
      local lost = {}
      if #missing > 0 then
        redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
        for _, id in ipairs(missing) do
          if redis.call('ZCARD', key) < tonumber(ARGV[3]) then
            redis.call('ZADD', key, expiry, id)
          else
            lost[#lost + 1] = id
          end
        end
      end
      redis.call('PEXPIRE', key, ARGV[2])
      return lost
      """;

  /** An idle key vanishes after this many leases. */
  private static final int KEY_TTL_LEASES = 3;
  private static final long FIRST_BACKOFF_MS = 5;
  private static final long MAX_BACKOFF_MS = 50;

  private final RedisLimiterConfig config;
  private final RedisClient redis;
  private final String acquireSha = sha1(ACQUIRE);
  private final String renewSha = sha1(RENEW);
  private final long keyTtlMs;
  private final Map<String, Held> held = new ConcurrentHashMap<>();
  private final ScheduledExecutorService renewer;
  private final AtomicBoolean backgroundFailing = new AtomicBoolean();
  private volatile boolean closed;

  RedisLimiter(RedisLimiterConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.keyTtlMs = config.leaseMs * KEY_TTL_LEASES;
    DefaultJedisClientConfig.Builder client = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(2_000)
        .socketTimeoutMillis(5_000)
        .database(config.database)
        .ssl(config.tls)
        .clientName("cotenant-limiter");
    if (config.user != null) {
      client.user(config.user);
    }
    if (config.password != null) {
      client.password(config.password);
    }
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(32);
    pool.setMaxIdle(32);
    pool.setMinIdle(0);
    pool.setMaxWait(Duration.ofSeconds(5));
    pool.setJmxEnabled(false);
    this.redis = RedisClient.builder()
        .hostAndPort(config.host, config.port)
        .clientConfig(client.build())
        .poolConfig(pool)
        .build();
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cotenant-redis-limiter-renewal");
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(1, config.leaseMs / 3);
    renewer.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
  }

  /** The Redis key of a server's set of leases. */
  String key(String serverName) {
    return config.prefix + serverName;
  }

  /** How many permits this limiter holds now (renewed in the background). */
  int held() {
    return held.size();
  }

  @Override
  public Optional<Permit> acquire(String serverName, int maxConcurrent, long timeout, TimeUnit unit)
      throws InterruptedException {
    Objects.requireNonNull(serverName, "serverName");
    Objects.requireNonNull(unit, "unit");
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be positive, got " + maxConcurrent + " for " + serverName);
    }
    if (closed) {
      throw new IllegalStateException("the " + config + " is closed: refusing the call rather than admitting it "
          + "without a limit");
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring a slot of " + serverName);
    }
    String key = key(serverName);
    String id = UUID.randomUUID().toString();
    long deadline = System.nanoTime() + unit.toNanos(Math.max(0, timeout));
    long backoff = FIRST_BACKOFF_MS;
    while (true) {
      if (tryAcquire(key, maxConcurrent, id)) {
        Held p = new Held(serverName, key, maxConcurrent, id);
        held.put(id, p);
        if (Thread.interrupted()) {
          // Granted just as the interrupt came: the caller will not use it, so give it back.
          p.close();
          throw new InterruptedException("interrupted while acquiring a slot of " + serverName);
        }
        return Optional.of(p);
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return Optional.empty();
      }
      long pause = TimeUnit.MILLISECONDS.toNanos(backoff + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
      TimeUnit.NANOSECONDS.sleep(Math.min(pause, remaining));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  private boolean tryAcquire(String key, int max, String id) {
    Object granted;
    try {
      granted = script(ACQUIRE, acquireSha, key,
          List.of(Integer.toString(max), Long.toString(config.leaseMs), id, Long.toString(keyTtlMs)));
    } catch (RuntimeException e) {
      String what = e instanceof JedisConnectionException ? "cannot be reached" : "failed";
      throw new IllegalStateException("the redis limiter at " + config.displayUrl + " " + what + " (" + cause(e)
          + "): refusing the call rather than admitting it without a limit", e);
    }
    if (!(granted instanceof Number)) {
      throw new IllegalStateException("the redis limiter at " + config.displayUrl + " answered the acquire script with "
          + granted + ": refusing the call rather than admitting it without a limit");
    }
    return ((Number) granted).longValue() == 1;
  }

  /**
   * Runs a script by its digest, loading it when Redis does not know it (a restarted server). A
   * pooled connection broken by a restarted server is dropped, and the script tried once more on
   * a new one.
   */
  private Object script(String body, String sha, String key, List<String> args) {
    return retried(() -> scriptOnce(body, sha, key, args));
  }

  /**
   * Runs {@code command}; when its connection fails (a pooled connection broken by a restarted
   * server), drops the idle pooled connections and runs it once more on a new one.
   */
  private <T> T retried(Supplier<T> command) {
    try {
      return command.get();
    } catch (JedisConnectionException e) {
      redis.getPool().clear();
      return command.get();
    }
  }

  private Object scriptOnce(String body, String sha, String key, List<String> args) {
    try {
      return redis.evalsha(sha, List.of(key), args);
    } catch (JedisNoScriptException e) {
      return redis.eval(body, List.of(key), args);
    }
  }

  /** Renews every lease this process holds, one script per server. */
  private void renewAll() {
    try {
      if (held.isEmpty()) {
        return;
      }
      Map<String, List<Held>> byServer = new LinkedHashMap<>();
      for (Held h : held.values()) {
        byServer.computeIfAbsent(h.key + "\n" + h.max, k -> new ArrayList<>()).add(h);
      }
      for (List<Held> batch : byServer.values()) {
        renew(batch);
      }
    } catch (RuntimeException e) {
      failedInBackground("renew leases", e);
    }
  }

  private void renew(List<Held> batch) {
    Held first = batch.get(0);
    List<String> args = new ArrayList<>();
    args.add(Long.toString(config.leaseMs));
    args.add(Long.toString(keyTtlMs));
    args.add(Integer.toString(first.max));
    batch.forEach(h -> args.add(h.id));
    Object lost;
    try {
      lost = script(RENEW, renewSha, first.key, args);
    } catch (RuntimeException e) {
      failedInBackground("renew the leases of " + first.serverName, e);
      return;
    }
    succeededInBackground();
    for (Held h : batch) {
      if (!held.containsKey(h.id)) {
        // Closed while the renewal ran, which may have re-claimed it: remove it again.
        removeLease(h);
      }
    }
    if (lost instanceof List<?> && !((List<?>) lost).isEmpty()) {
      for (Object id : (List<?>) lost) {
        held.remove(String.valueOf(id));
      }
      LOG.warn("the redis limiter at {} lost {} lease(s) of {}: they ran out before renewal (or Redis lost them) and "
          + "every slot has been taken since; the call(s) holding them run on beyond maxConcurrent {}",
          config.displayUrl, ((List<?>) lost).size(), first.serverName, first.max);
    }
  }

  private void removeLease(Held h) {
    try {
      retried(() -> redis.zrem(h.key, h.id));
      succeededInBackground();
    } catch (RuntimeException e) {
      failedInBackground("release a permit of " + h.serverName, e);
    }
  }

  private void succeededInBackground() {
    if (backgroundFailing.compareAndSet(true, false)) {
      LOG.info("the redis limiter at {} answers again", config.displayUrl);
    }
  }

  private void failedInBackground(String what, RuntimeException e) {
    if (backgroundFailing.compareAndSet(false, true)) {
      LOG.warn("the redis limiter at {} could not {} ({}); a lease not renewed or removed runs out after {} ms. "
          + "Further failures are not logged until Redis answers again", config.displayUrl, what, cause(e), config.leaseMs);
    }
  }

  /** The innermost cause's message, without the password should a driver ever echo it. */
  private String cause(Throwable e) {
    Throwable root = e;
    for (int depth = 0; depth < 10; depth++) {
      // The driver reports a failed connect with the socket's own exception suppressed, not as the cause.
      Throwable next = root.getCause() != null ? root.getCause()
          : root.getSuppressed().length > 0 ? root.getSuppressed()[0] : null;
      if (next == null || next == root) {
        break;
      }
      root = next;
    }
    String m = root.getMessage() == null || root.getMessage().isBlank() ? root.getClass().getSimpleName() : root.getMessage();
    if (config.password != null && m.contains(config.password)) {
      m = m.replace(config.password, "***");
    }
    return m.replaceAll("([A-Za-z][A-Za-z0-9+.-]*://)[^/\\s@]*@", "$1");
  }

  /** Stops the renewals and closes the connection pool; held permits' leases then run out. */
  @Override
  public void close() {
    closed = true;
    renewer.shutdownNow();
    redis.close();
  }

  @Override
  public String toString() {
    return config.toString();
  }

  private static String sha1(String script) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is missing from this JVM", e);
    }
  }

  /** A permit this process holds: renewed until closed. */
  private final class Held implements Permit {
    final String serverName;
    final String key;
    final int max;
    final String id;
    private final AtomicBoolean released = new AtomicBoolean();

    Held(String serverName, String key, int max, String id) {
      this.serverName = serverName;
      this.key = key;
      this.max = max;
      this.id = id;
    }

    @Override
    public void close() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      held.remove(id);
      removeLease(this);
    }

    @Override
    public String toString() {
      return "permit of " + serverName + " from the " + config;
    }
  }
}
