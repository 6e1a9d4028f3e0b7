package dev.cotenant.api;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A statelessness probe that passed (docs/statelessness.md): either of ONE tool (the operator's
 * {@code --tool}), or of the server's WHOLE SURFACE (every listed tool, the session-visible
 * listings, notifications and server requests). Only a whole-surface pass can back a
 * {@code shared} registration; a single-tool pass is supporting evidence only.
 *
 * @param identity the {@link ExecutionIdentity#ledgerKey()} of the server it passed under
 * @param tool the tool the probe called; {@value #WHOLE_SURFACE} for a whole-surface pass
 * @param rounds how many rounds passed (at least {@link #MIN_ROUNDS})
 * @param passedAt seconds since the epoch
 * @param surface what a whole-surface pass covered; empty for a single-tool pass
 */
public record ProbePass(String identity, String tool, int rounds, double passedAt, Optional<Surface> surface) {
  /** A probe of fewer rounds proves too little to be recorded. */
  public static final int MIN_ROUNDS = 3;

  /** The {@link #tool()} of a whole-surface pass. */
  public static final String WHOLE_SURFACE = "*";

  public ProbePass {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(surface, "surface");
    if (identity.isEmpty()) {
      throw new IllegalArgumentException("a probe pass must name the identity it passed under");
    }
    if (tool.isEmpty()) {
      throw new IllegalArgumentException("a probe pass must name the tool it called");
    }
    if (rounds < MIN_ROUNDS) {
      throw new IllegalArgumentException(
          "a statelessness probe needs at least " + MIN_ROUNDS + " rounds; this one ran " + rounds);
    }
    if (surface.isPresent() && !tool.equals(WHOLE_SURFACE)) {
      throw new IllegalArgumentException(
          "a whole-surface probe pass must name the tool '" + WHOLE_SURFACE + "', not '" + tool + "'");
    }
  }

  /** A single-tool pass. */
  public ProbePass(String identity, String tool, int rounds, double passedAt) {
    this(identity, tool, rounds, passedAt, Optional.empty());
  }

  /** A whole-surface pass covering {@code surface}. */
  public static ProbePass wholeSurface(String identity, int rounds, double passedAt, Surface surface) {
    return new ProbePass(identity, WHOLE_SURFACE, rounds, passedAt, Optional.of(surface));
  }

  /** True when this pass covered the server's whole surface. */
  public boolean wholeSurface() {
    return surface.isPresent();
  }

  /**
   * True when this is a whole-surface pass and every one of {@code listedTools} was exercised by
   * it or skipped by the operator's plan: a tool it never saw (a new {@code tools/list})
   * is not covered.
   */
  public boolean covers(Collection<String> listedTools) {
    return surface.map(s -> listedTools.stream().allMatch(t -> s.exercised().contains(t) || s.skipped().containsKey(t)))
        .orElse(false);
  }

  /**
   * True when this is a whole-surface pass whose callers also ran as clients declaring every one
   * of {@code clientCapabilities} ({@code roots}, {@code sampling}, {@code elicitation}) and
   * answered what the server asked of them: the evidence covers a client of that shape. An empty
   * collection is covered by every whole-surface pass.
   */
  public boolean coversClients(Collection<String> clientCapabilities) {
    return surface.map(s -> s.clientCapabilities().containsAll(clientCapabilities)).orElse(false);
  }

  /**
   * The detail of {@code statelessness_probe_passed}: {@code echo x5} for one tool,
   * {@code whole surface: 3 tools x3} (and {@code , 1 skipped by plan}, and
   * {@code , clients declaring elicitation, roots, sampling}) for the whole surface.
   */
  public String detail() {
    if (surface.isEmpty()) {
      return tool + " x" + rounds;
    }
    Surface s = surface.get();
    int n = s.exercised().size();
    return "whole surface: " + n + " tool" + (n == 1 ? "" : "s") + " x" + rounds
        + (s.skipped().isEmpty() ? "" : ", " + s.skipped().size() + " skipped by plan")
        + (s.clientCapabilities().isEmpty() ? "" : ", clients declaring " + String.join(", ", s.clientCapabilities()));
  }

  /**
   * What a whole-surface pass covered.
   *
   * @param exercised the tools the probe called, in the order listed
   * @param skipped the tools the operator's plan skipped, each with the plan's reason (sorted by name)
   * @param clientCapabilities the client capabilities a server asks its client about
   *     ({@code elicitation}, {@code roots}, {@code sampling}; sorted, no repeats) that the
   *     probe's callers also declared in a second pass, each answering with values of its own,
   *     and that pass passed too; empty when the evidence covers only clients declaring none of
   *     them (a record written before this field existed reads so)
   * @param protocolVersions the protocol versions the probe's callers asked for in passes that
   *     passed (sorted, no repeats); empty when the record does not say (one written before this
   *     field existed), which covers no client of another version than its backend's
   */
  public record Surface(List<String> exercised, SortedMap<String, String> skipped, List<String> clientCapabilities,
      List<String> protocolVersions) {
    public Surface {
      exercised = List.copyOf(exercised);
      skipped = Collections.unmodifiableSortedMap(new TreeMap<>(skipped));
      clientCapabilities = List.copyOf(new java.util.TreeSet<>(clientCapabilities));
      protocolVersions = List.copyOf(new java.util.TreeSet<>(protocolVersions));
      for (String c : clientCapabilities) {
        if (c.isBlank()) {
          throw new IllegalArgumentException("a covered client capability must be named");
        }
      }
      for (String v : protocolVersions) {
        if (v.isBlank()) {
          throw new IllegalArgumentException("a covered protocol version must be named");
        }
      }
      for (Map.Entry<String, String> e : skipped.entrySet()) {
        if (e.getValue().isBlank()) {
          throw new IllegalArgumentException("the plan's skip of " + e.getKey() + " must give a reason");
        }
        if (exercised.contains(e.getKey())) {
          throw new IllegalArgumentException(e.getKey() + " cannot be both exercised and skipped");
        }
      }
    }

    /** A surface covering clients that declare none of the capabilities a server asks about. */
    public Surface(List<String> exercised, SortedMap<String, String> skipped) {
      this(exercised, skipped, List.of(), List.of());
    }

    /** A surface that does not say which protocol versions its callers asked for. */
    public Surface(List<String> exercised, SortedMap<String, String> skipped, List<String> clientCapabilities) {
      this(exercised, skipped, clientCapabilities, List.of());
    }

    /** A surface with the given tools exercised and {@code skipped} skipped, for clients declaring none. */
    public static Surface of(List<String> exercised, Map<String, String> skipped) {
      return new Surface(exercised, new TreeMap<>(skipped));
    }

    /** A surface with the given tools exercised and {@code skipped} skipped, for clients declaring {@code clientCapabilities}. */
    public static Surface of(List<String> exercised, Map<String, String> skipped, List<String> clientCapabilities) {
      return new Surface(exercised, new TreeMap<>(skipped), clientCapabilities);
    }

    /** As {@link #of(List, Map, List)}, its callers having asked for {@code protocolVersions}. */
    public static Surface of(List<String> exercised, Map<String, String> skipped, List<String> clientCapabilities,
        List<String> protocolVersions) {
      return new Surface(exercised, new TreeMap<>(skipped), clientCapabilities, protocolVersions);
    }
  }
}
