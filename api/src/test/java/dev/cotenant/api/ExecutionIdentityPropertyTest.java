package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of {@link ExecutionIdentity} over arbitrary fields and env maps. */
class ExecutionIdentityPropertyTest {

  private static String envHash(Map<String, String> env) {
    return ExecutionIdentity.envHash(env, SecretPatterns.defaults(), Set.of());
  }

  @Provide
  Arbitrary<String> field() {
    return Arbitraries.strings().all().excludeChars('\0').ofMaxLength(40);
  }

  @Property
  void everyCacheKeyRoundTrips(
      @ForAll("field") String name,
      @ForAll("field") String cmd,
      @ForAll("field") String env,
      @ForAll("field") String bin,
      @ForAll("field") String schema) {
    ExecutionIdentity id = new ExecutionIdentity(name, cmd, env, bin, schema);
    assertEquals(id, ExecutionIdentity.parseCacheKey(id.cacheKey()));
  }

  @Property
  void envInsertionOrderNeverMatters(@ForAll Map<@From("field") String, @From("field") String> env) {
    Map<String, String> reversed = new LinkedHashMap<>();
    List<Map.Entry<String, String>> entries = List.copyOf(env.entrySet());
    for (int i = entries.size() - 1; i >= 0; i--) {
      reversed.put(entries.get(i).getKey(), entries.get(i).getValue());
    }
    assertEquals(envHash(env), envHash(reversed));
  }
}
