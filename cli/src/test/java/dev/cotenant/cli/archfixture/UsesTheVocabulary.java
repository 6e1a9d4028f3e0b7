package dev.cotenant.cli.archfixture;

import dev.cotenant.spi.rpc.Envelope;
import dev.cotenant.spi.rpc.RequestId;
import java.util.Map;

/** Builds its envelope through the vocabulary: what the envelope rule must let pass. */
public final class UsesTheVocabulary {
  private UsesTheVocabulary() {}

  /** A ping request. */
  public static Map<String, Object> ping() {
    return Envelope.request(RequestId.of(1), "ping", null);
  }
}
