package dev.cotenant.providers.evidence;

import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ToolFacts;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.ProviderConfig;
import java.util.List;

/**
 * {@code all_tools_read_only}: the server lists at least one tool and every tool declares
 * {@code readOnlyHint: true}. Positive evidence only: it supports, never grounds. Silent without
 * a handshake.
 */
public final class AllToolsReadOnlyProvider extends CodeSource {
  /** This source's name, which is also the code it contributes. */
  public static final String NAME = ReasonCode.ALL_TOOLS_READ_ONLY.wireName();

  /** Does nothing; the source is built in {@link #create}. */
  public AllToolsReadOnlyProvider() {
    super(ReasonCode.ALL_TOOLS_READ_ONLY);
  }

  @Override
  EvidenceSource source(ProviderConfig config) {
    return input -> input.handshake()
        .filter(h -> !h.tools().isEmpty() && h.tools().stream().allMatch(ToolFacts::readOnly))
        .map(h -> only(""))
        .orElse(List.of());
  }
}
