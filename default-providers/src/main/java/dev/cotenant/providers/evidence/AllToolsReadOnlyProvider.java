package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.HandshakeFacts;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * {@code all_tools_read_only}: the server lists at least one tool and every tool declares
 * {@code readOnlyHint: true}. Positive evidence only: it supports, never grounds. Silent without
 * a handshake.
 */
public final class AllToolsReadOnlyProvider implements EvidenceSourceProvider {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.ALL_TOOLS_READ_ONLY.wireName();

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
      return !h.tools().isEmpty() && h.tools().stream().allMatch(ToolFacts::readOnly)
          ? List.of(Finding.of(NAME, ReasonCode.ALL_TOOLS_READ_ONLY))
          : List.of();
    };
  }
}
