package dev.cotenant.api;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which env names are secrets (docs/architecture.md): by default {@code *_TOKEN}, {@code *_SECRET},
 * {@code *_KEY}, {@code *PASSWORD*}, {@code *CREDENTIAL*}. Patterns are globs where {@code *}
 * matches any run of characters; matching ignores case. Immutable and thread-safe.
 */
public final class SecretPatterns {
  /** The default glob patterns. */
  public static final List<String> DEFAULT_GLOBS =
      List.of("*_TOKEN", "*_SECRET", "*_KEY", "*PASSWORD*", "*CREDENTIAL*");

  private static final SecretPatterns DEFAULTS = new SecretPatterns(DEFAULT_GLOBS);

  private final List<String> globs;
  private final List<Pattern> patterns;

  private SecretPatterns(List<String> globs) {
    this.globs = List.copyOf(globs);
    List<Pattern> ps = new ArrayList<>();
    for (String g : this.globs) {
      if (g.isBlank()) {
        throw new IllegalArgumentException("a secret pattern must not be blank");
      }
      StringBuilder re = new StringBuilder();
      for (String part : g.split("\\*", -1)) {
        re.append(Pattern.quote(part)).append(".*");
      }
      re.setLength(re.length() - 2);
      ps.add(Pattern.compile(re.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL));
    }
    this.patterns = List.copyOf(ps);
  }

  /** The default patterns. */
  public static SecretPatterns defaults() {
    return DEFAULTS;
  }

  /**
   * Patterns from globs.
   *
   * @throws IllegalArgumentException on a blank glob
   */
  public static SecretPatterns of(List<String> globs) {
    return new SecretPatterns(globs);
  }

  /** The globs, as given. */
  public List<String> globs() {
    return globs;
  }

  /** True when {@code envName} matches a secret pattern. */
  public boolean isSecret(String envName) {
    for (Pattern p : patterns) {
      if (p.matcher(envName).matches()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "SecretPatterns" + globs;
  }
}
