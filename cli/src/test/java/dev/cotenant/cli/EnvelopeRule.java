package dev.cotenant.cli;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Only the JSON-RPC vocabulary ({@code dev.cotenant.spi.rpc}) builds envelopes: no other class
 * names the {@code "jsonrpc"} member. A class that writes an envelope by hand must hold that
 * text as a constant, so the rule reads each class file's constant pool for it (ArchUnit sees
 * types and calls, not string constants).
 */
final class EnvelopeRule {
  /** The constant pool entry of the text {@code jsonrpc}: tag 1 (UTF-8), length 7, the bytes. */
  private static final byte[] ENTRY = entry("jsonrpc");

  static final ArchRule ONLY_THE_VOCABULARY_BUILDS_ENVELOPES = ArchRuleDefinition.classes()
      .that().resideOutsideOfPackage("dev.cotenant.spi.rpc..")
      .should(notNameTheJsonRpcMember())
      .because("envelopes come from dev.cotenant.spi.rpc.Envelope and messages are classified by RpcMessage.read"
          + " (docs/architecture.md, the JSON-RPC vocabulary)");

  private EnvelopeRule() {}

  private static ArchCondition<JavaClass> notNameTheJsonRpcMember() {
    return new ArchCondition<>("not name the \"jsonrpc\" member") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        byte[] bytes = classFile(c);
        if (bytes == null) {
          events.add(SimpleConditionEvent.violated(c, c.getName() + " has no class file to read"));
        } else if (indexOf(bytes, ENTRY) >= 0) {
          events.add(SimpleConditionEvent.violated(c, c.getName() + " names \"jsonrpc\": it builds or reads an"
              + " envelope by hand instead of through dev.cotenant.spi.rpc"));
        }
      }
    };
  }

  private static byte[] classFile(JavaClass c) {
    if (c.getSource().isEmpty()) {
      return null;
    }
    try (InputStream in = c.getSource().get().getUri().toURL().openStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
  }

  private static byte[] entry(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[3 + utf8.length];
    out[0] = 1;
    out[1] = (byte) (utf8.length >> 8);
    out[2] = (byte) utf8.length;
    System.arraycopy(utf8, 0, out, 3, utf8.length);
    return out;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
