package dev.cotenant.examples;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.examples.provider.HostManagedClassifierProvider;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.testkit.contract.ManagedServerClassifierContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The host's classifier held to every rule the core relies on: a stable lowercase name, a
 * constructor that does no IO, answers that are never null, pure and thread-safe, and a
 * classification that never runs the server.
 */
class HostManagedClassifierContractTest extends ManagedServerClassifierContract {
  @Override
  protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
    return HostManagedClassifierProvider::new;
  }

  /** Configured with a server it knows, so the rules also run on a "session-bound" answer. */
  @Override
  protected ProviderContext context() {
    return new ProviderContext(
        ProviderConfig.of(Map.of(HostManagedClassifierProvider.SERVERS_KEY, "desktop-control")), directory);
  }

  @Override
  protected List<ServerDescription> servers() {
    List<ServerDescription> servers = new ArrayList<>(super.servers());
    servers.add(ServerDescription.stdio("desktop-control", "desktop-mcp"));
    return servers;
  }
}
