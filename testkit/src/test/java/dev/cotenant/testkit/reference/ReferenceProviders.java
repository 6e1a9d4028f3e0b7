package dev.cotenant.testkit.reference;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.Transport;
import dev.cotenant.api.Verdict;
import dev.cotenant.spi.ConcurrencyLimiter;
import dev.cotenant.spi.ConcurrencyLimiterProvider;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.spi.SeedPlan;
import dev.cotenant.spi.SeedingPolicy;
import dev.cotenant.spi.SeedingPolicyProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Small, honest providers of the single-object SPIs, the yardsticks of the kit's own tests; the
 * bite tests' broken providers are these with one defect each.
 */
public final class ReferenceProviders {
  private ReferenceProviders() {}

  /** What every reference provider has in common: the name {@code reference}. */
  public abstract static class Named implements NamedProvider {
    @Override
    public String name() {
      return "reference";
    }
  }

  /** Speaks about the transport, logging and read-only tools. */
  public static class Evidence extends Named implements EvidenceSourceProvider {
    @Override
    public EvidenceSource create(ProviderContext context) {
      return input -> {
        List<Finding> out = new ArrayList<>();
        if (input.server().transport() != Transport.STDIO) {
          out.add(Finding.of(name(), ReasonCode.NOT_STDIO, input.server().transport().wireName()));
        }
        input.handshake().ifPresent(h -> {
          if (h.hasCapability("logging")) {
            out.add(Finding.of(name(), ReasonCode.DEGRADES_WHEN_SHARED, "logging_level"));
          }
          if (!h.tools().isEmpty() && h.tools().stream().allMatch(t -> t.readOnly())) {
            out.add(Finding.of(name(), ReasonCode.ALL_TOOLS_READ_ONLY));
          }
        });
        return List.copyOf(out);
      };
    }
  }

  /** Knows a server as session-bound when its env says {@code MANAGED_BY=host}. */
  public static class Classifier extends Named implements ManagedServerClassifierProvider {
    @Override
    public ManagedServerClassifier create(ProviderContext context) {
      return server -> "host".equals(server.env().get("MANAGED_BY"))
          ? Optional.of("resolves its caller from MANAGED_BY") : Optional.empty();
    }
  }

  /** The default seeding rules: stub what recommends a stub, report what wants sharing, once per server. */
  public static class Seeding extends Named implements SeedingPolicyProvider {
    @Override
    public SeedingPolicy create(ProviderContext context) {
      return new Policy();
    }

    /** The policy; overridable for the bite tests. */
    public static class Policy implements SeedingPolicy {
      @Override
      public SeedPlan plan(Map<String, Verdict> verdicts, Set<String> applied) {
        Map<String, Boolean> overrides = new TreeMap<>();
        Set<String> wantsShare = new TreeSet<>();
        Set<String> already = new TreeSet<>();
        verdicts.forEach((name, v) -> {
          if (seeded(name, applied)) {
            already.add(name);
            return;
          }
          if (v.recommendStub()) {
            overrides.put(name, true);
          }
          if (v.recommendShare()) {
            wantsShare.add(name);
          }
        });
        return new SeedPlan(overrides, wantsShare, already);
      }

      /** True when {@code name} counts as seeded already. */
      protected boolean seeded(String name, Set<String> applied) {
        return applied.contains(name);
      }

      @Override
      public void apply(SeedPlan plan, Map<String, Object> stubOverrides, Set<String> applied) {
        new TreeMap<>(plan.stubOverrides()).forEach((name, stub) -> {
          if (!applied.contains(name)) {
            stubOverrides.put(name, stub);
            applied.add(name);
          }
        });
      }
    }
  }

  /** One fair semaphore per server. */
  public static class Limiter extends Named implements ConcurrencyLimiterProvider {
    @Override
    public ConcurrencyLimiter create(ProviderContext context) {
      Map<String, Semaphore> slots = new ConcurrentHashMap<>();
      return (serverName, maxConcurrent, timeout, unit) -> {
        Semaphore s = slots.computeIfAbsent(serverName, k -> new Semaphore(slots(maxConcurrent), true));
        if (!s.tryAcquire(timeout, unit)) {
          return Optional.empty();
        }
        return Optional.of(permit(s));
      };
    }

    /** How many slots a limit of {@code maxConcurrent} gets; overridable for the bite tests. */
    protected int slots(int maxConcurrent) {
      return maxConcurrent;
    }

    /** The permit of one acquired slot; overridable for the bite tests. */
    protected ConcurrencyLimiter.Permit permit(Semaphore s) {
      AtomicBoolean released = new AtomicBoolean();
      return () -> {
        if (released.compareAndSet(false, true)) {
          s.release();
        }
      };
    }
  }
}
