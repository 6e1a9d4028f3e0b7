package dev.cotenant.gateway.providers;

import java.io.IOException;
import java.net.URL;
import java.util.Enumeration;

/**
 * A class loader that shows {@link java.util.ServiceLoader} only one scenario's service files,
 * {@code provider-fixtures/<scenario>/META-INF/services/*} on the test classpath, and loads
 * every class through its parent. Each provider-loading test thereby runs the real
 * {@code ServiceLoader} against exactly the registrations it asserts on, while the module's
 * global {@code META-INF/services} stays free of broken providers that would break other
 * tests.
 */
public final class ScopedServices extends ClassLoader {
  private static final String SERVICES = "META-INF/services/";

  private final String root;

  private ScopedServices(String scenario, ClassLoader parent) {
    super(parent);
    this.root = "provider-fixtures/" + scenario + "/";
  }

  /** A {@link ProviderLoader} that sees only {@code scenario}'s registrations. */
  public static ProviderLoader loader(String scenario) {
    return new ProviderLoader(new ScopedServices(scenario, ScopedServices.class.getClassLoader()));
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    return name.startsWith(SERVICES) ? getParent().getResources(root + name) : super.getResources(name);
  }

  @Override
  public URL getResource(String name) {
    return name.startsWith(SERVICES) ? getParent().getResource(root + name) : super.getResource(name);
  }
}
