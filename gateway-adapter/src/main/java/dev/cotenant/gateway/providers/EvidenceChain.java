package dev.cotenant.gateway.providers;

import dev.cotenant.api.Finding;
import dev.cotenant.api.LogSafe;
import dev.cotenant.api.ReasonCode;
import dev.cotenant.api.ServerDescription;
import dev.cotenant.gateway.providers.ProviderSelection.Selected;
import dev.cotenant.spi.EvidenceInput;
import dev.cotenant.spi.EvidenceSource;
import dev.cotenant.spi.EvidenceSourceProvider;
import dev.cotenant.spi.ManagedServerClassifier;
import dev.cotenant.spi.ManagedServerClassifierProvider;
import dev.cotenant.spi.NamedProvider;
import dev.cotenant.spi.ProviderContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The two chains a verdict's inferred evidence comes from, selected and created once: the
 * managed-server classifiers ({@link Spi#CLASSIFIERS}) and the evidence sources
 * ({@link Spi#EVIDENCE_SOURCES}), each in chain order. A member that throws or answers
 * {@code null} fails the whole call, naming itself: evidence is never dropped silently.
 * Thread-safe as far as its members are.
 */
public final class EvidenceChain {
  private final List<Selected<ManagedServerClassifier>> classifiers;
  private final List<Selected<EvidenceSource>> sources;

  private EvidenceChain(List<Selected<ManagedServerClassifier>> classifiers, List<Selected<EvidenceSource>> sources) {
    this.classifiers = classifiers;
    this.sources = sources;
  }

  /**
   * Selects both chains ({@link ProviderSelection#chain}) from the explicit instances and what
   * {@code discovery} finds, and creates every member with {@code context}.
   *
   * @throws ProviderLoadingException when a member cannot be loaded, a name is taken twice, or a
   *     provider fails in {@code create()}
   */
  public static EvidenceChain select(List<ManagedServerClassifierProvider> explicitClassifiers,
      List<EvidenceSourceProvider> explicitSources, ProviderDiscovery discovery, ProviderContext context) {
    return new EvidenceChain(
        chain(Spi.CLASSIFIERS, explicitClassifiers, discovery, context),
        chain(Spi.EVIDENCE_SOURCES, explicitSources, discovery, context));
  }

  private static <T extends NamedProvider, R> List<Selected<R>> chain(
      Spi<T, R> spi, List<T> explicit, ProviderDiscovery discovery, ProviderContext context) {
    List<Selected<T>> chain = ProviderSelection.chain(spi, explicit, discovery.discover(spi.type()), context.config());
    List<Selected<R>> out = new ArrayList<>();
    for (Selected<T> s : chain) {
      R created = ProviderSelection.create(spi, s, p -> spi.create(p, context));
      out.add(new Selected<>(created, s.name(), s.className(), s.origin()));
    }
    return List.copyOf(out);
  }

  /** The classifier names, in chain order. */
  public List<String> classifierNames() {
    return classifiers.stream().map(Selected::name).toList();
  }

  /** The evidence source names, in chain order. */
  public List<String> evidenceSourceNames() {
    return sources.stream().map(Selected::name).toList();
  }

  /**
   * The inferred evidence about one server: first each classifier that says the server is
   * session-bound by construction (a {@code session_bound_by_construction} finding whose detail
   * is the classifier's reason), then every evidence source's findings, in chain order.
   *
   * @throws IllegalStateException naming the classifier or source when one throws or returns null
   */
  public List<Finding> findings(EvidenceInput input) {
    Objects.requireNonNull(input, "input");
    ServerDescription server = input.server();
    List<Finding> out = new ArrayList<>();
    for (Selected<ManagedServerClassifier> c : classifiers) {
      ask("classifier", c.name(), server, () -> c.provider().sessionBoundReason(server))
          .ifPresent(r -> out.add(Finding.of(c.name(), ReasonCode.SESSION_BOUND_BY_CONSTRUCTION, r)));
    }
    for (Selected<EvidenceSource> s : sources) {
      out.addAll(ask("evidence source", s.name(), server, () -> s.provider().findings(input)));
    }
    return List.copyOf(out);
  }

  /** What member {@code name} answers; its exception, or a {@code null} answer, fails the call naming it. */
  private static <T> T ask(String what, String name, ServerDescription server, Supplier<@Nullable T> call) {
    T answer;
    try {
      answer = call.get();
    } catch (RuntimeException e) {
      throw failed(what, name, server, e);
    }
    if (answer == null) {
      throw failed(what, name, server, null);
    }
    return answer;
  }

  private static IllegalStateException failed(String what, String name, ServerDescription server, @Nullable RuntimeException e) {
    String msg =
        what + " \"" + LogSafe.escape(name) + "\" failed on server \"" + LogSafe.escape(server.name()) + "\": "
            + (e == null ? "it returned null" : e.getClass().getSimpleName() + ": " + LogSafe.escape(String.valueOf(e.getMessage())));
    return e == null ? new IllegalStateException(msg) : new IllegalStateException(msg, e);
  }
}
