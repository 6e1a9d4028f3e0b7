package dev.cotenant.gateway.probe;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.cotenant.api.Json;
import dev.cotenant.api.LogSafe;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks candidate arguments against a tool's {@code inputSchema} with a maintained JSON Schema
 * validator (networknt json-schema-validator): 2020-12 when the schema names no {@code $schema},
 * formats asserted, no reference fetched from anywhere outside the schema itself. A schema the
 * validator cannot read checks nothing (every candidate is kept), so a server's odd schema never
 * makes the probe call less than it would without the check. Thread-safe.
 */
final class SchemaCheck {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
      b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build())
          .schemaLoader(l -> l.block(iri -> !iri.toString().startsWith("https://json-schema.org/")
              && !iri.toString().startsWith("http://json-schema.org/"))));

  private final Optional<Schema> schema;

  private SchemaCheck(Optional<Schema> schema) {
    this.schema = schema;
  }

  /** A check against {@code inputSchema}; one that checks nothing when the validator cannot read it. */
  static SchemaCheck of(Map<String, Object> inputSchema) {
    try {
      Schema s = REGISTRY.getSchema(MAPPER.valueToTree(Json.thaw(inputSchema)));
      s.initializeValidators();
      return new SchemaCheck(Optional.of(s));
    } catch (RuntimeException e) {
      return new SchemaCheck(Optional.empty());
    }
  }

  /**
   * Why {@code template}, rendered with a sample marker and workspace value, is not valid against
   * the schema; empty when it is, or when this check checks nothing.
   */
  Optional<String> problem(ArgumentTemplate template) {
    if (schema.isEmpty()) {
      return Optional.empty();
    }
    try {
      List<Error> errors = schema.get().validate(MAPPER.valueToTree(Json.thaw(
          template.render(SchemaArguments.SAMPLE_MARKER, SchemaArguments.SAMPLE_WORKSPACE,
              "/tmp/cotenant-probe-0a1b2c3d/probe-shared-1/" + SchemaArguments.SAMPLE_MARKER))));
      if (errors.isEmpty()) {
        return Optional.empty();
      }
      Error first = errors.get(0);
      return Optional.of(LogSafe.escape(first.getInstanceLocation() + ": " + first.getMessage(), 200));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
