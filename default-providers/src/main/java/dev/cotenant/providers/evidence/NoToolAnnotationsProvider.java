package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code no_tool_annotations}: the server lists tools and none carries an {@code annotations}
 * object. Annotations exist only from MCP 2025-03-26 on, so their absence means nothing; the
 * finding records why there is no annotation evidence. Detail: the negotiated protocol version
 * ({@code ""} when none was reported). Silent without a handshake.
 */
public final class NoToolAnnotationsProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.NO_TOOL_ANNOTATIONS.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public NoToolAnnotationsProvider() {
    super(ReasonCode.NO_TOOL_ANNOTATIONS);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.handshake()
        .filter(h -> !h.tools().isEmpty() && !h.anyToolAnnotated())
        .map(h -> only(h.protocolVersion()))
        .orElse(List.of());
  }
}
