package dev.cotenant.gateway.providers;

import dev.cotenant.api.LogSafe;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.ProviderConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The selection rules, applied to what a {@link ProviderDiscovery} found. Pure apart from
 * logging; it never discovers anything itself.
 *
 * <p><b>Single-provider SPIs</b> (record stores, pre-flight transport, seeding policy), in this
 * order:
 *
 * <ol>
 *   <li>An instance passed explicitly to the builder or module is used; discovery is not
 *       consulted (the caller does not even run it).
 *   <li>When the SPI's configuration key names a provider, that one is used. No provider by
 *       that name is an error listing the available names and what to add; two or more by that
 *       name is an error naming every class.
 *   <li>Otherwise a single discovered provider is used, when nothing else failed to load.
 *   <li>Otherwise the SPI's default name ({@code file}, {@code stdio}, {@code default}) is used
 *       when exactly one discovered provider carries it; the others are logged.
 *   <li>Otherwise it is an error: nothing discovered, nothing loadable, or a choice the
 *       configuration must make.
 * </ol>
 *
 * <p>A registration that failed to load never disappears. When the selection can still be made
 * unambiguously (the configured or the default name loaded) each failure is logged as a
 * warning; when it cannot — the broken one may be the one meant — the failures are part of the
 * error. A provider that throws in {@code create()} is reported with the SPI, its name and class
 * and where it is registered.
 *
 * <p><b>Chains</b> (evidence sources, classifiers): every provider runs, ordered by
 * {@code order()} then name. Any registration that failed to load, and any name registered
 * twice, is an error: a chain never runs without one of its members, because a missing evidence
 * source or classifier could make a verdict stronger than its evidence. An explicit instance
 * replaces a discovered provider of the same name; {@value Spi#EVIDENCE_DISABLED_KEY} removes
 * evidence sources by name.
 */
public final class ProviderSelection {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderSelection.class);

  private ProviderSelection() {}

  /** Where a selected provider came from. */
  public enum Origin {
    /** Found in {@code META-INF/services}. */
    DISCOVERED,
    /** Passed to the builder or the module. */
    EXPLICIT
  }

  /**
   * A provider with its resolved name.
   *
   * @param provider the provider
   * @param name its {@code name()}
   * @param className its class
   * @param origin where it came from
   * @param <T> the provider interface
   */
  public record Selected<T>(T provider, String name, String className, Origin origin) {
    public Selected {
      Objects.requireNonNull(provider, "provider");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(className, "className");
      Objects.requireNonNull(origin, "origin");
    }

    /** An explicitly passed provider. */
    public static <T extends NamedProvider> Selected<T> explicit(Spi<T, ?> spi, T provider) {
      return new Selected<>(provider, nameOf(spi, provider, Origin.EXPLICIT), provider.getClass().getName(), Origin.EXPLICIT);
    }
  }

  /**
   * Selects the one provider of a single-provider SPI from what was discovered.
   *
   * @throws ProviderLoadingException when no provider can be chosen; the message says why and
   *     what to add, remove or configure
   */
  public static <T extends NamedProvider> Selected<T> selectOne(Spi<T, ?> spi, Discovered<T> discovered, ProviderConfig config) {
    if (spi.isChain()) {
      throw new IllegalArgumentException(spi + " is a chain, not a single-provider SPI");
    }
    List<ProviderFailure> failures = new ArrayList<>(discovered.failures());
    List<Selected<T>> candidates = resolveNames(spi, discovered, failures);
    String key = spi.selectionKey().orElseThrow();
    Optional<String> configured = config.get(key).map(String::strip).filter(s -> !s.isEmpty());

    if (configured.isPresent()) {
      String wanted = configured.get();
      List<Selected<T>> matches = named(candidates, wanted);
      if (matches.isEmpty()) {
        String msg =
            key + " set to \"" + LogSafe.escape(wanted) + "\" but no " + spi + " named \"" + LogSafe.escape(wanted)
                + "\" is on the classpath; available: " + names(candidates) + ". Add a jar registering it in "
                + servicesFile(spi.type());
        if (!failures.isEmpty()) {
          msg += ". These registered providers failed to load, and the one named may be among them: " + describe(failures);
        }
        throw withCause(msg, failures);
      }
      return chosen(spi, matches, failures, key + " names it");
    }

    if (candidates.isEmpty()) {
      if (failures.isEmpty()) {
        throw new ProviderLoadingException(
            "no " + spi + " is on the classpath. Add a jar registering one in " + servicesFile(spi.type())
                + spi.defaultName().map(d -> " (cotenant-default-providers registers \"" + d + "\")").orElse("")
                + ", or pass an instance to Cotenant.builder()." + spi.builderMethod() + "(...)");
      }
      throw withCause(
          "no " + spi + " could be loaded: " + describe(failures) + ". Fix or remove the registration in "
              + servicesFile(spi.type()),
          failures);
    }
    Set<String> distinct = candidates.stream().map(Selected::name).collect(Collectors.toCollection(TreeSet::new));
    if (distinct.size() == 1 && failures.isEmpty()) {
      return chosen(spi, candidates, failures, "it is the only one discovered");
    }
    if (spi.defaultName().isPresent()) {
      List<Selected<T>> defaults = named(candidates, spi.defaultName().get());
      if (!defaults.isEmpty()) {
        if (defaults.size() == 1) {
          LOG.info(
              "{} providers discovered: {}; using the default \"{}\" because {} is not set",
              spi, names(candidates), spi.defaultName().get(), key);
        }
        return chosen(spi, defaults, failures, "it is the default");
      }
    }
    throw withCause(
        "cannot choose a " + spi + ": " + key + " is not set"
            + spi.defaultName().map(d -> " and no discovered provider is the default \"" + d + "\"").orElse("")
            + "; discovered: " + namesWithClasses(candidates)
            + (failures.isEmpty() ? "" : "; failed to load: " + describe(failures))
            + ". Set " + key + " to one of the discovered names",
        failures);
  }

  /**
   * Builds a chain: explicit instances plus what was discovered, minus disabled names, ordered
   * by {@code order()} then name.
   *
   * @throws ProviderLoadingException when a registration failed to load or a name is taken twice
   */
  public static <T extends NamedProvider> List<Selected<T>> chain(Spi<T, ?> spi, List<T> explicit, Discovered<T> discovered, ProviderConfig config) {
    if (!spi.isChain()) {
      throw new IllegalArgumentException(spi + " selects one provider, it is not a chain");
    }
    List<ProviderFailure> failures = new ArrayList<>(discovered.failures());
    List<Selected<T>> found = resolveNames(spi, discovered, failures);
    if (!failures.isEmpty()) {
      throw withCause(
          "cannot build the " + spi + " chain: registered providers failed to load: " + describe(failures)
              + ". A chain never runs without one of its members, since a missing one could make a verdict"
              + " stronger than its evidence; fix or remove the registration in " + servicesFile(spi.type()),
          failures);
    }
    Map<String, Selected<T>> byName = uniqueByName(spi, found, "in " + servicesFile(spi.type()));
    List<Selected<T>> given = new ArrayList<>();
    for (T p : explicit) {
      given.add(Selected.explicit(spi, p));
    }
    Map<String, Selected<T>> explicitByName =
        uniqueByName(spi, given, "passed to Cotenant.builder()." + spi.builderMethod() + "(...)");
    for (Map.Entry<String, Selected<T>> e : explicitByName.entrySet()) {
      Selected<T> replaced = byName.put(e.getKey(), e.getValue());
      if (replaced != null) {
        LOG.info("{} \"{}\" passed explicitly replaces the discovered {}", spi, e.getKey(), replaced.className());
      }
    }
    if (spi.disabledKey().isPresent()) {
      for (String off : config.getList(spi.disabledKey().get(), List.of())) {
        if (byName.remove(off) == null) {
          LOG.warn(
              "{} lists \"{}\" but no {} has that name; available: {}",
              spi.disabledKey().get(), LogSafe.escape(off), spi, new TreeSet<>(byName.keySet()));
        }
      }
    }
    List<Selected<T>> out = new ArrayList<>(byName.values());
    out.sort(
        Comparator.<Selected<T>>comparingInt(s -> spi.orderOf(s.provider())).thenComparing(Selected::name));
    return List.copyOf(out);
  }

  /**
   * Calls the provider's factory method, reporting a failure with the SPI, the provider's name
   * and class, and where it is registered.
   *
   * @throws ProviderLoadingException when the factory throws or returns null
   */
  public static <T extends NamedProvider, R> R create(Spi<T, ?> spi, Selected<T> selected, Function<T, R> factory) {
    R made;
    try {
      made = factory.apply(selected.provider());
    } catch (RuntimeException | LinkageError e) {
      throw new ProviderLoadingException(
          spi + " \"" + LogSafe.escape(selected.name()) + "\" (" + selected.className() + ") failed in create(): "
              + brief(e) + ". " + whereFrom(spi, selected),
          e);
    }
    if (made == null) {
      throw new ProviderLoadingException(
          spi + " \"" + LogSafe.escape(selected.name()) + "\" (" + selected.className() + ") returned null from create(). "
              + whereFrom(spi, selected));
    }
    return made;
  }

  /** {@code META-INF/services/<spi>}. */
  public static String servicesFile(Class<?> spi) {
    return "META-INF/services/" + spi.getName();
  }

  /** {@code SimpleName: message}, escaped and bounded for one line. */
  static String brief(Throwable t) {
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null ? "" : ": " + LogSafe.escape(m, 300));
  }

  private static String whereFrom(Spi<?, ?> spi, Selected<?> s) {
    return s.origin() == Origin.DISCOVERED
        ? "It is registered in " + servicesFile(spi.type())
        : "It was passed to Cotenant.builder()." + spi.builderMethod() + "(...)";
  }

  private static <T extends NamedProvider> Selected<T> chosen(Spi<T, ?> spi, List<Selected<T>> matches, List<ProviderFailure> failures, String why) {
    if (matches.size() > 1) {
      throw duplicate(spi, matches, "in " + servicesFile(spi.type()));
    }
    Selected<T> s = matches.get(0);
    for (ProviderFailure f : failures) {
      LOG.warn(
          "{} registration {} failed to load and was not selected ({} \"{}\" is used because {}); fix or remove it in {}",
          spi, f.describe(), spi, s.name(), why, f.servicesFile());
    }
    LOG.debug("{} \"{}\" ({}) selected because {}", spi, s.name(), s.className(), why);
    return s;
  }

  private static <T extends NamedProvider> List<Selected<T>> resolveNames(Spi<T, ?> spi, Discovered<T> discovered, List<ProviderFailure> failures) {
    List<Selected<T>> out = new ArrayList<>();
    for (T p : discovered.providers()) {
      String className = p.getClass().getName();
      try {
        String name = spi.nameOf(p);
        if (name.isBlank()) {
          failures.add(
              new ProviderFailure(spi.type(), className, "name() returned a blank name",
                  new IllegalStateException("blank provider name")));
          continue;
        }
        out.add(new Selected<>(p, name, className, Origin.DISCOVERED));
      } catch (RuntimeException | LinkageError e) {
        failures.add(new ProviderFailure(spi.type(), className, "name() threw " + brief(e), e));
      }
    }
    return out;
  }

  private static <T extends NamedProvider> String nameOf(Spi<T, ?> spi, T provider, Origin origin) {
    String name;
    try {
      name = spi.nameOf(provider);
    } catch (RuntimeException e) {
      throw new ProviderLoadingException(
          spi + " " + provider.getClass().getName() + " (" + origin.name().toLowerCase(java.util.Locale.ROOT)
              + ") threw from name(): " + brief(e),
          e);
    }
    if (name.isBlank()) {
      throw new ProviderLoadingException(spi + " " + provider.getClass().getName() + " returned a blank name()");
    }
    return name;
  }

  private static <T extends NamedProvider> Map<String, Selected<T>> uniqueByName(Spi<T, ?> spi, List<Selected<T>> all, String where) {
    Map<String, List<Selected<T>>> groups = new LinkedHashMap<>();
    for (Selected<T> s : all) {
      groups.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s);
    }
    Map<String, Selected<T>> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<Selected<T>>> g : groups.entrySet()) {
      if (g.getValue().size() > 1) {
        throw duplicate(spi, g.getValue(), where);
      }
      out.put(g.getKey(), g.getValue().get(0));
    }
    return out;
  }

  private static ProviderLoadingException duplicate(Spi<?, ?> spi, List<? extends Selected<?>> same, String where) {
    return new ProviderLoadingException(
        same.size() + " " + spi + "s " + where + " are named \"" + LogSafe.escape(same.get(0).name()) + "\": "
            + same.stream().map(Selected::className).collect(Collectors.joining(", "))
            + "; a name must be unique within an SPI. Remove all but one of them");
  }

  private static <T> List<Selected<T>> named(List<Selected<T>> candidates, String name) {
    return candidates.stream().filter(s -> s.name().equals(name)).collect(Collectors.toList());
  }

  private static String names(List<? extends Selected<?>> candidates) {
    return candidates.stream().map(Selected::name).collect(Collectors.toCollection(TreeSet::new)).toString();
  }

  private static String namesWithClasses(List<? extends Selected<?>> candidates) {
    return candidates.stream()
        .sorted(Comparator.comparing((Selected<?> s) -> s.name()).thenComparing(Selected::className))
        .map(s -> s.name() + " (" + s.className() + ")")
        .collect(Collectors.joining(", ", "[", "]"));
  }

  private static String describe(List<ProviderFailure> failures) {
    return failures.stream().map(ProviderFailure::describe).collect(Collectors.joining("; ", "[", "]"));
  }

  private static ProviderLoadingException withCause(String msg, List<ProviderFailure> failures) {
    ProviderLoadingException e =
        failures.isEmpty() ? new ProviderLoadingException(msg) : new ProviderLoadingException(msg, failures.get(0).cause());
    for (int i = 1; i < failures.size(); i++) {
      e.addSuppressed(failures.get(i).cause());
    }
    return e;
  }
}
