package dev.cotenant.testkit.reference;

import dev.cotenant.api.ServerDescription;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.testkit.contract.ManagedServerClassifierContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

class ReferenceClassifierTest extends ManagedServerClassifierContract {
  @Override
  protected Supplier<? extends ManagedServerClassifierProvider> constructor() {
    return ReferenceProviders.Classifier::new;
  }

  @Override
  protected List<ServerDescription> servers() {
    List<ServerDescription> out = new ArrayList<>(super.servers());
    out.add(ServerDescription.stdio("managed", "/opt/host/helper").withEnv(Map.of("MANAGED_BY", "host")));
    return out;
  }
}
