package dev.cotenant.providers.evidence;

import dev.cotenant.api.Finding;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ProviderConfig;
import dev.cotenant.spi.ProviderContext;
import java.util.List;

/**
 * A default evidence source: named after the one reason code it contributes, and built from the
 * configuration alone. Subclasses say what they find ({@link #source}); naming, creation and the
 * shape of a finding live here.
 */
abstract class CodeSource implements EvidenceSourceProvider {
  private final ReasonCode code;

  CodeSource(ReasonCode code) {
    this.code = code;
  }

  @Override
  public final String name() {
    return code.wireName();
  }

  @Override
  public final EvidenceSource create(ProviderContext context) {
    return source(context.config());
  }

  /** The source, configured once. */
  abstract EvidenceSource source(ProviderConfig config);

  /** One finding of this source's code with {@code detail}. */
  final Finding finding(String detail) {
    return Finding.of(name(), code, detail);
  }

  /** Exactly one finding of this source's code, with {@code detail}. */
  final List<Finding> only(String detail) {
    return List.of(finding(detail));
  }
}
