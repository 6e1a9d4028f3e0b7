package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * {@code no_tool_annotations}: the server lists tools and none carries an {@code annotations}
 * object. Annotations exist only from MCP 2025-03-26 on, so their absence means nothing; the
 * finding records why there is no annotation evidence. Detail: the negotiated protocol version
 * ({@code ""} when none was reported). Silent without a handshake.
 */
public final class NoToolAnnotationsProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NO_TOOL_ANNOTATIONS.wireName();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public EvidenceSource create(ProviderContext context) {
    return input -> {
      if (input.handshake().isEmpty()) {
        return List.of();
      }
      HandshakeFacts h = input.handshake().get();
      return !h.tools().isEmpty() && !h.anyToolAnnotated()
          ? List.of(Finding.of(NAME, ReasonCode.NO_TOOL_ANNOTATIONS, h.protocolVersion()))
          : List.of();
    };
  }
}
