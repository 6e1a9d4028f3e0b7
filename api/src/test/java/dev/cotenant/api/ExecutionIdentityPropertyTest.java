package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.quicktheories.generators.SourceDSL.maps;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Properties of {@link ExecutionIdentity} over arbitrary fields and env maps. Each property is a
 * static method taking the theory to run and the function it checks, so
 * {@link PropertiesBiteTest} can show it fails on a broken one.
 */
class ExecutionIdentityPropertyTest {

  private static String envHash(Map<String, String> env) {
    return ExecutionIdentity.envHash(env, SecretPatterns.defaults(), Set.of());
  }

  /**
   * Up to 40 characters, each as likely a C0 control character (NUL, the key's separator, and
   * U+0001, its escape, included) or DEL as any UTF-16 code unit.
   */
  private static Gen<String> field() {
    Gen<Character> control =
        Generate.oneOf(TextGenerators.charsBetween('\u0000', '\u001f'), TextGenerators.charsOf('\u007f'));
    return TextGenerators.strings(Generate.oneOf(control, TextGenerators.anyChar()), 0, 40);
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
  void aSeparatorInsideAFieldNeverMergesTwoIdentities() {
    aSeparatorInsideAFieldNeverMergesTwoIdentities(Theories.qt(), ExecutionIdentity::ledgerKey);
    aSeparatorInsideAFieldNeverMergesTwoIdentities(Theories.qt(), ExecutionIdentity::cacheKey);
  }

  /**
   * A NUL and any text {@code f} at the end of the name, or the same at the start of the command
   * hash, make two different identities that an unescaped NUL-join would spell alike; {@code key}
   * must tell them apart.
   */
  static void aSeparatorInsideAFieldNeverMergesTwoIdentities(
      QuickTheory qt, Function<ExecutionIdentity, String> key) {
    qt.forAll(identities(), field())
        .checkAssert(
            (id, f) -> {
              ExecutionIdentity inName =
                  new ExecutionIdentity(
                      id.serverName() + '\0' + f, id.commandArgsHash(), id.envHash(), id.binaryVersion(), id.schema());
              ExecutionIdentity inCommand =
                  new ExecutionIdentity(
                      id.serverName(), f + '\0' + id.commandArgsHash(), id.envHash(), id.binaryVersion(), id.schema());
              assertNotEquals(key.apply(inName), key.apply(inCommand));
            });
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
