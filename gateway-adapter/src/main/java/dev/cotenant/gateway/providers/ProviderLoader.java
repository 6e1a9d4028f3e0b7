package dev.cotenant.gateway.providers;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Spliterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one class that calls {@link ServiceLoader} (an ArchUnit test holds it). It loads every
 * provider registered in {@code META-INF/services/<spi>} and reports each one that fails,
 * SLF4J-style: a failing registration never hides the ones after it, and never disappears —
 * it comes back in {@link Discovered#failures()}, for {@link ProviderSelection} to report or
 * refuse. Thread-safe: each call uses its own {@code ServiceLoader}.
 */
public final class ProviderLoader implements ProviderDiscovery {
  /** A guard against a class loader that reports the same broken registration for ever. */
  static final int MAX_FAILURES = 1000;

  private static final Pattern CLASS_IN_MESSAGE =
      Pattern.compile("^(?:Provider )?([\\p{L}\\p{N}_$.]+) ");

  private final ClassLoader classLoader;

  /** Discovery through {@code classLoader}: it sees the service files and classes that loader sees. */
  public ProviderLoader(ClassLoader classLoader) {
    this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
  }

  /** Discovery through the thread's context class loader, or this library's when there is none. */
  public static ProviderLoader ofContextClassLoader() {
    ClassLoader tccl = Thread.currentThread().getContextClassLoader();
    return new ProviderLoader(tccl != null ? tccl : ProviderLoader.class.getClassLoader());
  }

  @Override
  public <T> Discovered<T> discover(Class<T> spi) {
    List<T> providers = new ArrayList<>();
    List<ProviderFailure> failures = new ArrayList<>();
    Spliterator<ServiceLoader.Provider<T>> it;
    try {
      it = ServiceLoader.load(spi, classLoader).stream().spliterator();
    } catch (ServiceConfigurationError e) {
      failures.add(fromLoadError(spi, e));
      return new Discovered<>(spi, providers, failures);
    }
    List<ServiceLoader.Provider<T>> next = new ArrayList<>(1);
    while (failures.size() < MAX_FAILURES) {
      next.clear();
      boolean advanced;
      try {
        // A missing class, a non-subtype or a missing constructor is thrown here; the
        // underlying iterator has already moved past that entry, so the loop goes on.
        advanced = it.tryAdvance(next::add);
      } catch (ServiceConfigurationError e) {
        failures.add(fromLoadError(spi, e));
        continue;
      }
      if (!advanced) {
        break;
      }
      ServiceLoader.Provider<T> p = next.get(0);
      String className = p.type().getName();
      try {
        providers.add(p.get());
      } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
        failures.add(new ProviderFailure(spi, className, instantiationProblem(e), e));
      }
    }
    return new Discovered<>(spi, providers, failures);
  }

  private static String instantiationProblem(Throwable e) {
    Throwable cause = e instanceof ServiceConfigurationError && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof ExceptionInInitializerError && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return "could not be instantiated: " + ProviderSelection.brief(cause);
  }

  private static ProviderFailure fromLoadError(Class<?> spi, ServiceConfigurationError e) {
    String msg = String.valueOf(e.getMessage());
    String prefix = spi.getName() + ": ";
    String rest = msg.startsWith(prefix) ? msg.substring(prefix.length()) : msg;
    Matcher m = CLASS_IN_MESSAGE.matcher(rest);
    String className = m.find() ? m.group(1) : "(unknown class)";
    String problem = rest.startsWith("Provider " + className + " ")
        ? rest.substring(("Provider " + className + " ").length())
        : rest.startsWith(className + " ") ? rest.substring(className.length() + 1) : rest;
    if (e.getCause() != null) {
      problem = problem + ": " + ProviderSelection.brief(e.getCause());
    }
    return new ProviderFailure(spi, className, problem, e);
  }
}
