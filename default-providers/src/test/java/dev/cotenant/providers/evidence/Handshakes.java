package dev.cotenant.providers.evidence;

import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import dev.cotenant.api.Finding;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Hand-built handshakes and a one-call way to run a source. */
final class Handshakes {
  static final ServerDescription STDIO = ServerDescription.stdio("srv", "node", "server.js");

  private Handshakes() {}

  static HandshakeFacts with(Map<String, ?> capabilities, List<ToolFacts> tools) {
    return HandshakeFacts.fromJson("2025-06-18", capabilities, Map.of("name", "srv"), tools);
  }

  static ToolFacts annotated(String name, Map<String, Object> annotations) {
    return new ToolFacts(name, Optional.of(annotations));
  }

  static ToolFacts readOnly(String name) {
    return annotated(name, Map.of("readOnlyHint", true));
  }

  static List<Finding> run(EvidenceSourceProvider p, ProviderConfig config, ServerDescription s, Optional<HandshakeFacts> h) {
    return p.create(new ProviderContext(config, Path.of("unused-records")))
        .findings(new EvidenceInput(s, h));
  }

  static List<Finding> run(EvidenceSourceProvider p, ServerDescription s, Optional<HandshakeFacts> h) {
    return run(p, ProviderConfig.empty(), s, h);
  }

  static List<Finding> run(EvidenceSourceProvider p, HandshakeFacts h) {
    return run(p, STDIO, Optional.of(h));
  }
}
