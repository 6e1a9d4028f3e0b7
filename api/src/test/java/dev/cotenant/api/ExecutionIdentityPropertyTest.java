package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.generators.SourceDSL.maps;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;

/**
 * Properties of {@link ExecutionIdentity} over arbitrary fields and env maps. Each property is a
 * static method taking the theory to run and the function it checks, so
 * {@link PropertiesBiteTest} can show it fails on a broken one.
 */
class ExecutionIdentityPropertyTest {

  private static String envHash(Map<String, String> env) {
    return ExecutionIdentity.envHash(env, SecretPatterns.defaults(), Set.of());
  }

  /** Up to 40 characters of any code unit but NUL. */
  private static Gen<String> field() {
    return TextGenerators.strings(TextGenerators.charsBetween('\u0001', Character.MAX_VALUE), 0, 40);
  }

  private static Gen<ExecutionIdentity> identities() {
    return field().zip(field(), field(), field(), field(), ExecutionIdentity::new);
  }

  /** Up to 255 entries, keys and values {@link #field() fields}. */
  private static Gen<Map<String, String>> envs() {
    return maps().of(field(), field()).ofSizeBetween(0, Theories.DEFAULT_MAX_SIZE);
  }

  @Test
  void everyCacheKeyRoundTrips() {
    everyCacheKeyRoundTrips(Theories.qt(), id -> ExecutionIdentity.parseCacheKey(id.cacheKey()));
  }

  static void everyCacheKeyRoundTrips(QuickTheory qt, Function<ExecutionIdentity, ExecutionIdentity> roundTrip) {
    qt.forAll(identities()).checkAssert(id -> assertEquals(id, roundTrip.apply(id)));
  }

  @Test
  void envInsertionOrderNeverMatters() {
    envInsertionOrderNeverMatters(Theories.qt(), ExecutionIdentityPropertyTest::envHash);
  }

  static void envInsertionOrderNeverMatters(QuickTheory qt, Function<Map<String, String>, String> envHash) {
    qt.forAll(envs())
        .checkAssert(
            env -> {
              Map<String, String> reversed = new LinkedHashMap<>();
              List<Map.Entry<String, String>> entries = List.copyOf(env.entrySet());
              for (int i = entries.size() - 1; i >= 0; i--) {
                reversed.put(entries.get(i).getKey(), entries.get(i).getValue());
              }
              assertEquals(envHash.apply(env), envHash.apply(reversed));
            });
  }
}
