package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Json;
import dev.cotenant.gateway.probe.SchemaArguments.Synthesis;
import dev.cotenant.gateway.probe.SchemaArguments.Synthesized;
import dev.cotenant.gateway.probe.SchemaArguments.Unsupported;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SchemaArgumentsTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  /** A schema as plain JSON, as the probe receives it from {@code tools/list}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> schema(String json) {
    return Json.freezeMap((Map<String, Object>) MAPPER.readValue(json, Map.class));
  }

  private static ArgumentTemplate synthesized(String schemaJson) {
    Synthesis s = SchemaArguments.synthesize(schema(schemaJson));
    return assertInstanceOf(Synthesized.class, s, () -> s.toString()).template();
  }

  private static void assertArguments(String expectedJson, String schemaJson) {
    ArgumentTemplate t = synthesized(schemaJson);
    JsonNode expected = MAPPER.readTree(expectedJson);
    assertEquals(expected, MAPPER.readTree(t.toString()), t::toString);
  }

  private static String unsupported(String schemaJson) {
    Synthesis s = SchemaArguments.synthesize(schema(schemaJson));
    String why = assertInstanceOf(Unsupported.class, s, () -> s.toString()).why();
    assertFalse(why.contains("\n"), why);
    return why;
  }

  private static void assertUnsupported(String schemaJson, String... parts) {
    String why = unsupported(schemaJson);
    for (String part : parts) {
      assertTrue(why.contains(part), () -> "expected \"" + part + "\" in: " + why);
    }
  }

  /** An object schema with one property {@code p}, required or not. */
  private static String one(String property, boolean required) {
    return "{\"type\":\"object\",\"properties\":{\"p\":" + property + "}" + (required ? ",\"required\":[\"p\"]" : "") + "}";
  }

  // --- Schemas of @modelcontextprotocol/server-everything, as its tools/list gives them. ---

  @Test
  void everythingEcho() {
    assertArguments("{\"message\":\"{marker}\"}",
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"Message to echo\"}},"
            + "\"required\":[\"message\"],\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
    assertTrue(synthesized("{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}")
        .carriesMarker());
  }

  @Test
  void everythingGetSum() {
    assertArguments("{\"a\":1,\"b\":1}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\",\"description\":\"First number\"},"
            + "\"b\":{\"type\":\"number\",\"description\":\"Second number\"}},\"required\":[\"a\",\"b\"],"
            + "\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
  }

  @Test
  void everythingGetAnnotatedMessage() {
    assertArguments("{\"messageType\":\"error\"}",
        "{\"type\":\"object\",\"properties\":{\"messageType\":{\"type\":\"string\",\"enum\":[\"error\",\"success\",\"debug\"],"
            + "\"description\":\"Type of message to demonstrate different annotation patterns\"},"
            + "\"includeImage\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Whether to include an example image\"}},"
            + "\"required\":[\"messageType\"],\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
  }

  @Test
  void everythingGzipFileAsResourceNeverPointsAtTheNetwork() {
    String schema = "{\"type\":\"object\",\"properties\":{"
        + "\"name\":{\"type\":\"string\",\"description\":\"Name of the output file\",\"default\":\"README.md.gz\"},"
        + "\"data\":{\"type\":\"string\",\"format\":\"uri\",\"description\":\"URL or data URI of the file content to compress\","
        + "\"default\":\"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md\"},"
        + "\"outputType\":{\"type\":\"string\",\"enum\":[\"resourceLink\",\"resource\"],\"default\":\"resourceLink\","
        + "\"description\":\"How the resulting gzipped file should be returned.\"}},"
        + "\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}";
    assertArguments("{\"name\":\"{marker}\",\"data\":\"data:text/plain,{marker}\"}", schema);
    assertFalse(synthesized(schema).toString().contains("http"));
  }

  @Test
  void everythingTriggerLongRunningOperationIsQuick() {
    assertArguments("{\"duration\":1,\"steps\":1}",
        "{\"type\":\"object\",\"properties\":{"
            + "\"duration\":{\"type\":\"number\",\"default\":10,\"description\":\"Duration of the operation in seconds\"},"
            + "\"steps\":{\"type\":\"number\",\"default\":5,\"description\":\"Number of steps in the operation\"}},"
            + "\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
  }

  @Test
  void everythingGetResourceLinks() {
    assertArguments("{\"count\":1}",
        "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"number\",\"minimum\":1,\"maximum\":10,\"default\":3,"
            + "\"description\":\"Number of resource links to return (1-10)\"}},"
            + "\"additionalProperties\":false,\"$schema\":\"http://json-schema.org/draft-07/schema#\"}");
  }

  // --- The top level. ---

  @Test
  void noPropertiesAreNoArguments() {
    assertArguments("{}", "{\"type\":\"object\",\"properties\":{}}");
    assertArguments("{}", "{\"type\":\"object\"}");
    assertArguments("{}", "{\"type\":\"object\",\"properties\":{},\"required\":[]}");
  }

  @Test
  void propertiesWithoutTypeAreAnObjectSchema() {
    assertArguments("{\"q\":\"{marker}\"}", "{\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}");
  }

  @Test
  void aTopLevelThatIsNotAnObjectSchemaIsUnsupported() {
    assertUnsupported("{\"type\":\"string\"}", "not an object schema", "`string`");
    assertUnsupported("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", "not an object schema", "`array`");
    assertUnsupported("{}", "not an object schema", "neither");
    assertUnsupported("{\"type\":\"object\",\"properties\":[]}", "\"properties\" is not an object");
    assertUnsupported("{\"type\":\"object\",\"required\":\"p\"}", "\"required\" is not an array");
  }

  // --- Required and optional properties. ---

  @Test
  void optionalStringsAndNumbersAreIncludedTheRestOmitted() {
    assertArguments("{\"s\":\"{marker}\",\"f\":\"2026-01-01\",\"n\":1,\"i\":1,\"any\":\"{marker}\"}",
        "{\"type\":\"object\",\"properties\":{"
            + "\"s\":{\"type\":\"string\"},\"f\":{\"type\":\"string\",\"format\":\"date\"},"
            + "\"n\":{\"type\":\"number\"},\"i\":{\"type\":\"integer\"},\"any\":{},"
            + "\"b\":{\"type\":\"boolean\"},\"e\":{\"enum\":[\"x\",\"y\"]},\"c\":{\"const\":\"k\"},"
            + "\"o\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}},\"required\":[\"x\"]},"
            + "\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1},\"z\":{\"type\":\"null\"}}}");
  }

  @Test
  void requiredValuesOfEveryKind() {
    assertArguments("{\"b\":false,\"z\":null,\"c\":{\"k\":[1]},\"e\":2,\"o\":{\"x\":\"{marker}\",\"y\":1},\"a\":[\"{marker}\"],"
            + "\"a2\":[\"{marker}\",\"{marker}\"]}",
        "{\"type\":\"object\",\"properties\":{"
            + "\"b\":{\"type\":\"boolean\",\"default\":true},\"z\":{\"type\":\"null\"},\"c\":{\"const\":{\"k\":[1]}},"
            + "\"e\":{\"type\":\"integer\",\"enum\":[2,3]},"
            + "\"o\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"},\"y\":{\"type\":\"integer\"},"
            + "\"flag\":{\"type\":\"boolean\"}},\"required\":[\"x\"]},"
            + "\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
            + "\"a2\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":2}},"
            + "\"required\":[\"b\",\"z\",\"c\",\"e\",\"o\",\"a\",\"a2\"]}");
  }

  @Test
  void aRequiredPropertyMissingFromPropertiesTakesAdditionalProperties() {
    assertArguments("{\"q\":\"{marker}\"}", "{\"type\":\"object\",\"required\":[\"q\"]}");
    assertArguments("{\"q\":1}", "{\"type\":\"object\",\"required\":[\"q\"],\"additionalProperties\":{\"type\":\"integer\"}}");
    assertUnsupported("{\"type\":\"object\",\"required\":[\"q\"],\"additionalProperties\":false}",
        "required property `q`", "additionalProperties");
  }

  @Test
  void anOptionalPropertyThatCannotBeSynthesisedIsOmitted() {
    assertArguments("{\"ok\":\"{marker}\"}", "{\"type\":\"object\",\"properties\":{"
        + "\"digits\":{\"type\":\"string\",\"pattern\":\"^[0-9]+$\",\"default\":\"12\"},"
        + "\"neg\":{\"type\":\"integer\",\"maximum\":0},"
        + "\"remote\":{\"$ref\":\"https://example.com/s.json\"},"
        + "\"ok\":{\"type\":\"string\"}}}");
  }

  @Test
  void aRequiredFailureNamesThePropertyPathEscaped() {
    assertUnsupported("{\"type\":\"object\",\"properties\":{\"outer\":{\"type\":\"object\",\"properties\":"
            + "{\"in\\nner\":{\"type\":\"string\",\"pattern\":\"^(?=a)b\"}},\"required\":[\"in\\nner\"]}},\"required\":[\"outer\"]}",
        "required property `outer`: required property `in\\nner`: ");
  }

  @Test
  void minPropertiesBeyondWhatIsSynthesisedIsUnsupported() {
    assertUnsupported(one("{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"boolean\"}},\"minProperties\":1}", true),
        "required property `p`", "minProperties");
  }

  // --- const, enum, type arrays, anyOf/oneOf, allOf, $ref. ---

  @Test
  void constAndEnumWinOverType() {
    assertArguments("{\"p\":\"fixed\"}", one("{\"type\":\"string\",\"const\":\"fixed\"}", true));
    assertArguments("{\"p\":\"first\"}", one("{\"type\":\"string\",\"enum\":[\"first\",\"second\"]}", true));
    assertArguments("{\"p\":null}", one("{\"enum\":[null,\"x\"]}", true));
    assertUnsupported(one("{\"enum\":[]}", true), "required property `p`", "enum");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "[\"string\",\"null\"]  | \"{marker}\"",
      "[\"null\",\"integer\"] | 1",
      "[\"null\"]             | null",
      "[\"boolean\",\"string\"] | false",
  })
  void typeArraysTakeTheirFirstTypeOtherThanNull(String type, String value) {
    assertArguments("{\"p\":" + value + "}", one("{\"type\":" + type + "}", true));
  }

  @Test
  void anyOfAndOneOfTakeTheFirstAlternativeThatSynthesises() {
    assertArguments("{\"p\":1}",
        one("{\"anyOf\":[{\"type\":\"string\",\"pattern\":\"^(?=a)b\"},{\"type\":\"integer\"},{\"type\":\"string\"}]}", true));
    assertArguments("{\"p\":1}",
        one("{\"oneOf\":[{\"type\":\"string\",\"pattern\":\"^(?=a)b\"},{\"type\":\"integer\"}]}", true));
    assertArguments("{\"p\":\"{marker}\"}", one("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", true));
    assertUnsupported(one("{\"anyOf\":[{\"type\":\"string\",\"pattern\":\"^(?=a)b\"},false]}", true),
        "required property `p`", "no alternative of \"anyOf\"", "pattern");
  }

  @Test
  void pydanticOptionalsAreDecidedByTheirFirstAlternative() {
    // Optional[str] is included (it carries the marker), Optional[bool] and Optional[Enum] are omitted.
    assertArguments("{\"text\":\"{marker}\"}", "{\"$defs\":{\"Color\":{\"enum\":[\"red\",\"green\"],\"type\":\"string\"}},"
        + "\"properties\":{"
        + "\"text\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}],\"default\":null,\"title\":\"Text\"},"
        + "\"flag\":{\"anyOf\":[{\"type\":\"boolean\"},{\"type\":\"null\"}],\"default\":null},"
        + "\"color\":{\"anyOf\":[{\"$ref\":\"#/$defs/Color\"},{\"type\":\"null\"}],\"default\":null}},"
        + "\"title\":\"Args\",\"type\":\"object\"}");
  }

  @Test
  void alternativesAreReadWithTheKeywordsBesideThem() {
    // The required pattern beside anyOf applies to the alternative it takes.
    assertUnsupported(one("{\"pattern\":\"^(?=a)b\",\"anyOf\":[{\"type\":\"string\"}]}", true), "pattern");
    assertArguments("{\"tenant\":\"{workspace}\",\"workspace\":\"{workspace}\"}",
        "{\"type\":\"object\",\"properties\":{\"tenant\":{\"allOf\":[{\"$ref\":\"#/$defs/W\"}]},\"workspace\":{\"$ref\":\"#/$defs/W\"}},"
            + "\"required\":[\"tenant\",\"workspace\"],\"$defs\":{\"W\":{\"type\":\"string\",\"pattern\":\"^cotenant-probe-\"}}}");
  }

  @Test
  void allOfWithOneSchemaIsThatSchemaWithMoreUnsupported() {
    assertArguments("{\"p\":3}", one("{\"allOf\":[{\"type\":\"integer\",\"minimum\":3}],\"description\":\"d\"}", true));
    assertUnsupported(one("{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":3}]}", true),
        "required property `p`", "\"allOf\" with 2 schemas");
  }

  @Test
  void localReferencesResolveAgainstTheTopLevel() {
    assertArguments("{\"item\":{\"id\":\"{marker}\",\"size\":2}}",
        "{\"$defs\":{\"Item\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
            + "\"size\":{\"$ref\":\"#/$defs/Size\"}},\"required\":[\"id\",\"size\"]},"
            + "\"Size\":{\"type\":\"integer\",\"minimum\":2}},"
            + "\"properties\":{\"item\":{\"$ref\":\"#/$defs/Item\",\"description\":\"the item\"}},"
            + "\"required\":[\"item\"],\"type\":\"object\"}");
    assertArguments("{\"when\":\"2026-01-01\"}",
        "{\"definitions\":{\"a/b\":{\"type\":\"string\",\"format\":\"date\"}},\"type\":\"object\","
            + "\"properties\":{\"when\":{\"$ref\":\"#/definitions/a~1b\"}},\"required\":[\"when\"]}");
    // zod-to-json-schema points at an earlier property for a reused schema.
    assertArguments("{\"from\":\"{marker}@example.invalid\",\"to\":\"{marker}@example.invalid\"}",
        "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\",\"format\":\"email\"},"
            + "\"to\":{\"$ref\":\"#/properties/from\"}},\"required\":[\"from\",\"to\"]}");
  }

  @Test
  void otherReferencesAreUnsupported() {
    assertUnsupported(one("{\"$ref\":\"https://example.com/schema.json\"}", true),
        "required property `p`", "`https://example.com/schema.json` is not a local reference");
    assertUnsupported(one("{\"$ref\":\"#/$defs/Missing\"}", true), "`#/$defs/Missing` is not a local reference");
    assertUnsupported(one("{\"$ref\":\"other.json#/$defs/X\"}", true), "not a local reference");
    assertUnsupported(one("{\"$ref\":\"#anchor\"}", true), "not a local reference");
  }

  // --- Strings. ---

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "uri           | data:text/plain,{marker}",
      "url           | data:text/plain,{marker}",
      "iri           | data:text/plain,{marker}",
      "uri-reference | data:text/plain,{marker}",
      "iri-reference | data:text/plain,{marker}",
      "email         | {marker}@example.invalid",
      "idn-email     | {marker}@example.invalid",
      "hostname      | {marker}.invalid",
      "idn-hostname  | {marker}.invalid",
      "date-time     | 2026-01-01T00:00:00Z",
      "date          | 2026-01-01",
      "time          | 00:00:00Z",
      "uuid          | 00000000-0000-4000-8000-000000000000",
      "ipv4          | 127.0.0.1",
      "ipv6          | ::1",
      "color         | {marker}",
      "binary        | {marker}",
  })
  void stringsByFormat(String format, String value) {
    assertArguments("{\"p\":\"" + value + "\"}", one("{\"type\":\"string\",\"format\":\"" + format + "\"}", true));
    // A supported format wins over the name; an unknown one is free text, named as usual.
    boolean unknown = format.equals("color") || format.equals("binary");
    assertArguments("{\"workspace\":\"" + (unknown ? "{workspace}" : value) + "\"}",
        "{\"type\":\"object\",\"properties\":{\"workspace\":{\"type\":\"string\",\"format\":\"" + format + "\"}},"
            + "\"required\":[\"workspace\"]}");
  }

  @ParameterizedTest
  @CsvSource({
      "workspace, {workspace}",
      "Workspace, {workspace}",
      "myWorkspace, {workspace}",
      "session, {workspace}",
      "sessionId, {workspace}",
      "session_id, {workspace}",
      "SESSION_ID, {workspace}",
      "scope, {workspace}",
      "tenant, {workspace}",
      "namespace, {workspace}",
      "project, {workspace}",
      "parentProject, {workspace}",
      "message, {marker}",
      "workspaces, {marker}",
      "projectName, {marker}",
      "workspace_id, {marker}",
  })
  void freeTextIsTheWorkspaceValueByName(String name, String value) {
    assertArguments("{\"" + name + "\":\"" + value + "\"}",
        "{\"type\":\"object\",\"properties\":{\"" + name + "\":{\"type\":\"string\"}},\"required\":[\"" + name + "\"]}");
  }

  @Test
  void arrayItemsGoByTheirArraysName() {
    assertArguments("{\"sessions\":[\"{marker}\"],\"scope\":[\"{workspace}\"]}",
        "{\"type\":\"object\",\"properties\":{"
            + "\"sessions\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1},"
            + "\"scope\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1}},\"required\":[\"sessions\",\"scope\"]}");
  }

  @Test
  void aPatternIsFoundAnywhereInTheSubstitutedValue() {
    // find(), not matches(): an unanchored pattern matching part of the marker is satisfied.
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"pattern\":\"[0-9a-f]{8}\"}", true));
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"pattern\":\"^[a-z0-9-]+$\"}", true));
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"pattern\":\"^(alpha|bravo)-\"}", true));
    assertArguments("{\"workspace\":\"{workspace}\"}", "{\"type\":\"object\",\"properties\":{\"workspace\":"
        + "{\"type\":\"string\",\"pattern\":\"^cotenant-probe-[ab]-[0-9a-f]{8}-[0-9]+$\"}},\"required\":[\"workspace\"]}");
    // The placeholder itself would not match; the substituted value does.
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"pattern\":\"^[^{}]+$\"}", true));
  }

  @Test
  void anUnsatisfiablePatternFallsBackToDefaultThenExamplesOrIsUnsupported() {
    assertUnsupported(
        "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"pattern\":\"^(?=a)b\"}},\"required\":[\"code\"]}",
        "required property `code`", "`{marker}` (as `alpha-1-0a1b2c3d`) does not match the pattern `^(?=a)b`",
        "neither \"default\" nor the first of \"examples\"");
    assertArguments("{\"p\":\"123\"}", one("{\"type\":\"string\",\"pattern\":\"^[0-9]+$\",\"default\":\"123\"}", true));
    assertArguments("{\"p\":\"42\"}",
        one("{\"type\":\"string\",\"pattern\":\"^[0-9]+$\",\"default\":\"abc\",\"examples\":[\"42\",\"7\"]}", true));
    assertUnsupported(one("{\"type\":\"string\",\"pattern\":\"^(?=a)b\",\"default\":\"abc\",\"examples\":[\"x\",\"7\"]}", true),
        "required property `p`");
    assertUnsupported(one("{\"type\":\"string\",\"pattern\":\"^(?=a)b\",\"default\":12}", true), "required property `p`");
  }

  @Test
  void aPatternMustHoldForTheLongestCallerValuesToo() {
    // The sample marker has 16 characters; a marker may have up to 24.
    assertEquals(16, SchemaArguments.SAMPLE_MARKER.length());
    assertEquals(SchemaArguments.MAX_MARKER_LENGTH, SchemaArguments.LONGEST_MARKER.length());
    assertEquals(SchemaArguments.MAX_WORKSPACE_LENGTH, SchemaArguments.LONGEST_WORKSPACE.length());
    // The shortest marker matches `^.{1,20}$`, the longest does not: a generated string is taken.
    String generated = synthesized(one("{\"type\":\"string\",\"pattern\":\"^.{1,20}$\"}", true)).toString();
    assertFalse(generated.contains("{marker}"), generated);
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"pattern\":\"^.{1,24}$\"}", true));
  }

  @Test
  void lengthsAreCheckedAgainstTheShortestAndLongestCallerValues() {
    assertArguments("{\"p\":\"{marker}\"}", one("{\"type\":\"string\",\"minLength\":16,\"maxLength\":24}", true));
    assertUnsupported(one("{\"type\":\"string\",\"maxLength\":23}", true), "longer than \"maxLength\" 23");
    assertUnsupported(one("{\"type\":\"string\",\"minLength\":17}", true), "shorter than \"minLength\" 17");
    assertArguments("{\"p\":\"{marker}.invalid\"}",
        one("{\"type\":\"string\",\"format\":\"hostname\",\"maxLength\":32}", true));
    assertUnsupported(one("{\"type\":\"string\",\"format\":\"hostname\",\"maxLength\":31}", true), "maxLength");
    String ws = "{\"type\":\"object\",\"properties\":{\"tenant\":{\"type\":\"string\",\"minLength\":27,\"maxLength\":%d}},"
        + "\"required\":[\"tenant\"]}";
    assertArguments("{\"tenant\":\"{workspace}\"}", String.format(ws, 40));
    assertUnsupported(String.format(ws, 39), "required property `tenant`", "maxLength");
    // A short limit falls back to a default that fits; lengths count code points.
    assertArguments("{\"p\":\"ab\"}", one("{\"type\":\"string\",\"maxLength\":2,\"default\":\"ab\"}", true));
    assertArguments("{\"p\":\"\uD83D\uDE00\uD83D\uDE00\"}",
        one("{\"type\":\"string\",\"maxLength\":2,\"default\":\"\uD83D\uDE00\uD83D\uDE00\"}", true));
  }

  @Test
  void aPatternJavaCannotRunIsUnsupported() {
    assertUnsupported(one("{\"type\":\"string\",\"pattern\":\"[\"}", true),
        "required property `p`", "`[` is not a regular expression Java accepts");
    assertArguments("{}", one("{\"type\":\"string\",\"pattern\":\"[\"}", false));
  }

  @Test
  void aPatternThatBacktracksWithoutEndStops() {
    // Java's matcher needs billions of steps for this pattern against this default.
    String schema = one("{\"type\":\"string\",\"pattern\":\"^(.*a){12}$\",\"default\":\"" + "a".repeat(40) + "!\"}", true);
    String why = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> unsupported(schema));
    assertTrue(why.contains("too costly"), why);
  }

  // --- Numbers. ---

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"type\":\"integer\"}                                           | 1",
      "{\"type\":\"integer\",\"minimum\":-5}                            | 1",
      "{\"type\":\"integer\",\"minimum\":5}                             | 5",
      "{\"type\":\"integer\",\"minimum\":2.5}                           | 3",
      "{\"type\":\"integer\",\"exclusiveMinimum\":5}                    | 6",
      "{\"type\":\"integer\",\"minimum\":5,\"exclusiveMinimum\":true}   | 6",
      "{\"type\":\"integer\",\"minimum\":5,\"exclusiveMinimum\":false}  | 5",
      "{\"type\":\"integer\",\"exclusiveMinimum\":0}                    | 1",
      "{\"type\":\"integer\",\"exclusiveMinimum\":1}                    | 2",
      "{\"type\":\"integer\",\"minimum\":7,\"exclusiveMinimum\":3}      | 7",
      "{\"type\":\"integer\",\"multipleOf\":5}                          | 5",
      "{\"type\":\"integer\",\"multipleOf\":4,\"minimum\":5}            | 8",
      "{\"type\":\"integer\",\"multipleOf\":1.5}                        | 3",
      "{\"type\":\"integer\",\"maximum\":1}                             | 1",
      "{\"type\":\"integer\",\"maximum\":0,\"default\":0}               | 0",
      "{\"type\":\"integer\",\"maximum\":-1,\"examples\":[-3]}          | -3",
      "{\"type\":\"integer\",\"minimum\":9007199254740991}              | 9007199254740991",
      "{\"type\":\"number\"}                                            | 1",
      "{\"type\":\"number\",\"minimum\":2.5}                            | 2.5",
      "{\"type\":\"number\",\"exclusiveMinimum\":2.5}                   | 3",
      "{\"type\":\"number\",\"multipleOf\":0.5,\"minimum\":1.2}         | 1.5",
      "{\"type\":\"number\",\"maximum\":0.5,\"default\":0.25}           | 0.25",
      "{\"type\":\"number\",\"maximum\":5,\"exclusiveMaximum\":true}    | 1",
      "{\"minimum\":3}                                                  | 3",
  })
  void numbersTakeTheSmallestValidValueOfAtLeastOne(String property, String value) {
    assertArguments("{\"p\":" + value + "}", one(property, true));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"type\":\"integer\",\"maximum\":0}",
      "{\"type\":\"integer\",\"maximum\":0,\"default\":5}",
      "{\"type\":\"integer\",\"maximum\":0,\"default\":-0.5}",
      "{\"type\":\"number\",\"maximum\":0.5}",
      "{\"type\":\"integer\",\"minimum\":1,\"exclusiveMaximum\":1}",
      "{\"type\":\"integer\",\"minimum\":10,\"maximum\":10,\"exclusiveMaximum\":true}",
      "{\"type\":\"integer\",\"minimum\":1.2,\"maximum\":1.8}",
      "{\"type\":\"integer\",\"multipleOf\":5,\"maximum\":4}",
      "{\"type\":\"integer\",\"multipleOf\":0}",
      "{\"type\":\"integer\",\"multipleOf\":-2}",
      "{\"type\":\"integer\",\"minimum\":\"1\"}",
  })
  void numbersWithoutAValidValueAreUnsupported(String property) {
    assertUnsupported(one(property, true), "required property `p`");
    assertArguments("{}", one(property, false));
  }

  @Test
  void aNumberFailureSaysWhichBoundsHeld() {
    assertUnsupported(one("{\"type\":\"integer\",\"minimum\":2,\"exclusiveMaximum\":2}", true),
        "no integer of at least 1 satisfies >= 2, < 2");
    assertUnsupported(one("{\"type\":\"integer\",\"multipleOf\":-2}", true), "\"multipleOf\" -2 is not above 0");
  }

  @Test
  void optionalNumbersAreSmall() {
    assertArguments("{\"limit\":1,\"timeoutMs\":100}", "{\"type\":\"object\",\"properties\":{"
        + "\"limit\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000,\"default\":50},"
        + "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":100,\"default\":30000}}}");
  }

  // --- Arrays. ---

  @Test
  void arraysHoldMinItemsSynthesisedItems() {
    assertArguments("{\"p\":[1,1,1]}", one("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":3}", true));
    assertArguments("{\"p\":[\"{marker}\",2]}", one("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],"
        + "\"items\":{\"type\":\"integer\",\"minimum\":2},\"minItems\":2}", true));
    assertArguments("{\"p\":[false,\"{marker}\"]}", one("{\"type\":\"array\",\"items\":[{\"type\":\"boolean\"}],"
        + "\"minItems\":2}", true));
    assertArguments("{\"p\":[[\"{marker}\"]]}",
        one("{\"type\":\"array\",\"items\":{\"type\":\"array\"},\"minItems\":1}", true));
  }

  /** An empty list writes nothing: a required array gets one item where it may, even without minItems. */
  @Test
  void aRequiredArrayHoldsAtLeastOneItemWhereOneIsAllowed() {
    assertArguments("{\"p\":[{\"name\":\"{marker}\",\"observations\":[\"{marker}\"]}]}",
        one("{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
            + "\"observations\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
            + "\"required\":[\"name\",\"observations\"]}}", true));
    assertArguments("{\"p\":[]}", one("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":0}", true));
    assertArguments("{\"p\":[]}", one("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^(?=a)b\"}}", true));
    assertArguments("{}", one("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", false));
  }

  @Test
  void arraysThatCannotBeSynthesisedAreUnsupported() {
    assertUnsupported(one("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^(?=a)b\"},\"minItems\":1}", true),
        "required property `p`", "item 0 of 1");
    assertArguments("{\"p\":[]}", one("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"pattern\":\"^(?=a)b\"}}", true));
    assertUnsupported(one("{\"type\":\"array\",\"minItems\":3,\"maxItems\":2}", true), "maxItems");
    assertUnsupported(one("{\"type\":\"array\",\"minItems\":2,\"uniqueItems\":true}", true), "uniqueItems");
    assertUnsupported(one("{\"type\":\"array\",\"contains\":{\"type\":\"string\"}}", true), "contains");
    assertUnsupported(one("{\"type\":\"array\",\"items\":[{\"type\":\"string\"}],\"additionalItems\":false,\"minItems\":2}", true),
        "item 1 of 2", "false");
    assertUnsupported(one("{\"type\":\"array\",\"minItems\":101}", true), "more than the 100 items");
    assertArguments("{\"p\":[\"{marker}\"]}", one("{\"type\":\"array\",\"minItems\":1,\"uniqueItems\":true}", true));
  }

  // --- Bounds. ---

  @Test
  void depthIsBoundedAtSixteenLevels() {
    assertArguments(nestedValue(SchemaArguments.MAX_DEPTH), nestedSchema(SchemaArguments.MAX_DEPTH));
    assertUnsupported(nestedSchema(SchemaArguments.MAX_DEPTH + 1), "deeper than 16 levels");
  }

  @Test
  void aRecursiveSchemaEndsAtTheDepthBound() {
    assertUnsupported("{\"type\":\"object\",\"$defs\":{\"Node\":{\"type\":\"object\",\"properties\":"
            + "{\"child\":{\"$ref\":\"#/$defs/Node\"}},\"required\":[\"child\"]}},"
            + "\"properties\":{\"root\":{\"$ref\":\"#/$defs/Node\"}},\"required\":[\"root\"]}",
        "required property `root`: required property `child`: ", "deeper than 16 levels");
    assertUnsupported("{\"type\":\"object\",\"$defs\":{\"A\":{\"$ref\":\"#/$defs/B\"},\"B\":{\"$ref\":\"#/$defs/A\"}},"
        + "\"properties\":{\"x\":{\"$ref\":\"#/$defs/A\"}},\"required\":[\"x\"]}", "required property `x`", "deeper than 16");
    assertUnsupported("{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"#\"}},\"required\":[\"x\"]}", "deeper than 16");
    // Optional, the same recursion is simply omitted.
    assertArguments("{\"name\":\"{marker}\"}", "{\"type\":\"object\",\"$defs\":{\"A\":{\"$ref\":\"#/$defs/A\"}},"
        + "\"properties\":{\"x\":{\"$ref\":\"#/$defs/A\"},\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
  }

  @Test
  void aSchemaThatTakesTooManyStepsIsUnsupported() {
    // 100 x 100 x 100 items: far more than the step bound, refused quickly.
    String items = "{\"type\":\"string\"}";
    for (int i = 0; i < 3; i++) {
      items = "{\"type\":\"array\",\"minItems\":100,\"items\":" + items + "}";
    }
    String schema = one(items, true);
    String why = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> unsupported(schema));
    assertTrue(why.contains("more than 10000 steps"), why);
    // Alternatives that all fail deep down are bounded too.
    String alternatives = "{\"type\":\"string\",\"pattern\":\"^(?=a)b\"}";
    for (int i = 0; i < 14; i++) {
      alternatives = "{\"anyOf\":[" + alternatives + "," + alternatives + "]}";
    }
    String schema2 = one(alternatives, true);
    assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(20), () -> unsupported(schema2)).contains("steps"));
  }

  @Test
  void theInputIsLeftAlone() {
    Map<String, Object> s = schema("{\"type\":\"object\",\"properties\":{\"p\":{\"$ref\":\"#/$defs/X\",\"description\":\"d\"},"
        + "\"q\":{\"anyOf\":[{\"type\":\"string\"}]}},\"required\":[\"p\",\"q\"],\"$defs\":{\"X\":{\"type\":\"integer\"}}}");
    String before = StatelessnessProbe.toJson(s);
    // Frozen maps throw on any change; the text is unchanged too.
    assertInstanceOf(Synthesized.class, SchemaArguments.synthesize(s));
    assertEquals(before, StatelessnessProbe.toJson(s));
  }

  // --- Edges. Each test names the mutants of SchemaArguments it kills (method, line at the time, mutator). ---

  /** Kills {@code Walk.step} (261, {@code >} to {@code >=}): the step bound itself is allowed. */
  @Test
  void exactlyTheStepBoundIsAllowed() {
    // The top level takes no step; each of its properties takes one.
    assertEquals(SchemaArguments.MAX_STEPS, synthesized(flat(SchemaArguments.MAX_STEPS)).render("m", "w").size());
    assertTrue(unsupported(flat(SchemaArguments.MAX_STEPS + 1)).contains("more than 10000 steps"));
  }

  /** {@code n} optional string properties, each of which is synthesised. */
  private static String flat(int n) {
    StringBuilder sb = new StringBuilder("{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : ",").append("\"p").append(i).append("\":{\"type\":\"string\"}");
    }
    return sb.append("}}").toString();
  }

  /**
   * Kills {@code Walk.object} (305, {@code >} to {@code >=}: as many properties as {@code
   * minProperties} refused; 307, the singular negated).
   */
  @Test
  void minPropertiesIsAMinimumAndItsMessageCounts() {
    assertArguments("{\"p\":\"{marker}\"}", "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\"}},\"minProperties\":1}");
    assertUnsupported("{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\"}},\"minProperties\":2}",
        "\"minProperties\" is 2 but only 1 property is synthesised");
    assertUnsupported("{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\"},\"q\":{\"type\":\"string\"}},"
        + "\"minProperties\":3}", "\"minProperties\" is 3 but only 2 properties are synthesised");
  }

  /**
   * Kills the {@code allMatch} lambdas of {@code Walk.object} (273) and {@code Walk.value} (388)
   * returning true: a name or a type that is not a string is refused, not cast.
   */
  @Test
  void requiredNamesAndTypeNamesMustBeStrings() {
    assertUnsupported("{\"type\":\"object\",\"properties\":{},\"required\":[\"a\",1]}",
        "\"required\" is not an array of names but an array");
    assertUnsupported(one("{\"type\":[\"string\",1]}", true),
        "\"type\" is neither a type name nor an array of them but an array");
  }

  /**
   * Kills {@code show} (833, both conditions negated; 836, 839 negated; 840 returning ""): a schema
   * value in a message is named by its kind.
   */
  @Test
  void aMessageNamesTheKindOfAValueThatIsNotAString() {
    assertUnsupported("{\"type\":\"object\",\"properties\":null}", "\"properties\" is not an object but null");
    assertUnsupported("{\"type\":\"object\",\"properties\":[]}", "\"properties\" is not an object but an array");
    assertUnsupported("{\"type\":\"object\",\"properties\":3}", "\"properties\" is not an object but 3");
    assertUnsupported(one("{\"$ref\":{}}", true), "\"$ref\" is not a string but an object");
    assertUnsupported(one("{\"$ref\":true}", true), "\"$ref\" is not a string but true");
    // A value of no JSON kind, which a host's own schema map might hold, is named by its class.
    Synthesis s = SchemaArguments.synthesize(Map.of("type", "object", "properties", new StringBuilder("p")));
    String why = assertInstanceOf(Unsupported.class, s, s::toString).why();
    assertEquals("\"properties\" is not an object but a StringBuilder", why);
  }

  /**
   * Kills {@code Walk.beside} (422, negated): {@code true} as an alternative takes free text, and a
   * string is refused.
   */
  @Test
  void anAlternativeIsTrueOrASchemaObject() {
    assertArguments("{\"p\":\"{marker}\"}", one("{\"anyOf\":[true]}", true));
    assertUnsupported(one("{\"anyOf\":[\"x\"]}", true), "the schema in \"anyOf\" is not an object but `x`");
  }

  /**
   * Kills {@code Walk.resolve} (456, negated: a digit token into an object read as an index; 457,
   * {@code <} to {@code <=}): a reference may index an array, within its length only.
   */
  @Test
  void aReferenceIndexesAnArrayWithinItsLength() {
    String defs = "{\"type\":\"object\",\"$defs\":{\"L\":[{\"type\":\"integer\",\"minimum\":4}],\"M\":{\"x\":{}}},"
        + "\"properties\":{\"p\":{\"$ref\":\"REF\"}},\"required\":[\"p\"]}";
    assertArguments("{\"p\":4}", defs.replace("REF", "#/$defs/L/0"));
    assertUnsupported(defs.replace("REF", "#/$defs/L/1"), "`#/$defs/L/1` is not a local reference");
    assertUnsupported(defs.replace("REF", "#/$defs/L/00"), "`#/$defs/L/00` is not a local reference");
    assertUnsupported(defs.replace("REF", "#/$defs/M/0"), "`#/$defs/M/0` is not a local reference");
  }

  /**
   * Kills {@code Walk.array} (470, negated: {@code minItems} or {@code maxItems} that is not a
   * number; 474, {@code <} to {@code <=}: {@code maxItems} equal to {@code minItems} refused).
   */
  @Test
  void itemCountsMustBeNumbersAndMayBeEqual() {
    assertArguments("{\"p\":[1,1]}", one("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2,\"maxItems\":2}", true));
    assertUnsupported(one("{\"type\":\"array\",\"minItems\":\"2\"}", true), "\"minItems\" or \"maxItems\" is not a number");
    assertUnsupported(one("{\"type\":\"array\",\"maxItems\":\"2\"}", true), "\"minItems\" or \"maxItems\" is not a number");
  }

  /**
   * Kills {@code Walk.array} (497) and {@code Walk.object} (298) with {@code depth + 1} changed to
   * {@code depth - 1}: array items and properties taken from {@code additionalProperties} are a level
   * deeper, so nesting through them ends at the depth bound (with the mutants the arrays are
   * synthesised, and the recursion runs out of steps instead).
   */
  @Test
  void itemsAndAdditionalPropertiesCountTowardsTheDepthBound() {
    assertArguments("{\"n\":" + "[".repeat(15) + "\"{marker}\"" + "]".repeat(15) + "}",
        "{\"type\":\"object\",\"properties\":{\"n\":" + nestedArrays(16) + "},\"required\":[\"n\"]}");
    assertUnsupported("{\"type\":\"object\",\"properties\":{\"n\":" + nestedArrays(17) + "},\"required\":[\"n\"]}",
        "deeper than 16 levels");
    assertUnsupported("{\"type\":\"object\",\"required\":[\"a\"],\"additionalProperties\":{\"$ref\":\"#\"}}",
        "deeper than 16 levels");
  }

  /** Arrays of one item nested so that the innermost string, at level {@code depth}, is a property's item. */
  private static String nestedArrays(int depth) {
    String s = "{\"type\":\"string\"}";
    for (int i = 1; i < depth; i++) {
      s = "{\"type\":\"array\",\"minItems\":1,\"items\":" + s + "}";
    }
    return s;
  }

  /**
   * Kills {@code string} (541, {@code <=} to {@code <}): a fallback of exactly the longest length
   * considered is taken.
   */
  @Test
  void aFallbackOfTheLongestLengthConsideredIsTaken() {
    String longest = "x".repeat(1_000);
    assertArguments("{\"p\":\"" + longest + "\"}", one("{\"type\":\"string\",\"pattern\":\"^x+$\",\"default\":\"" + longest + "\"}", true));
    // One character longer is not taken; a string generated from the pattern is.
    String t = synthesized(one("{\"type\":\"string\",\"pattern\":\"^x+$\",\"default\":\"" + longest + "x\"}", true))
        .toString();
    assertFalse(t.contains(longest + "x"), t);
    assertTrue(t.matches("\\{\"p\":\"x+\"\\}"), t);
  }

  /**
   * Kills {@code Bounds.of} (696, {@code >=} to {@code >}), {@code Bounds.smallest} (748, both
   * boundaries) and {@code Bounds.valid} (761, the exclusive boundary; 767 returning true), and covers
   * {@code Bounds.of} (708).
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"type\":\"integer\",\"minimum\":5,\"exclusiveMinimum\":5}                | 6",
      "{\"type\":\"integer\",\"minimum\":2,\"multipleOf\":2}                      | 2",
      "{\"type\":\"number\",\"exclusiveMinimum\":2,\"multipleOf\":2}              | 4",
      "{\"type\":\"integer\",\"maximum\":3,\"exclusiveMaximum\":2}                | 1",
      "{\"type\":\"integer\",\"maximum\":1,\"exclusiveMaximum\":1}                | ",
      "{\"type\":\"integer\",\"exclusiveMinimum\":5,\"maximum\":5,\"default\":5} | ",
      "{\"type\":\"number\",\"maximum\":0.5,\"multipleOf\":0.2,\"default\":0.3} | ",
      "{\"type\":\"number\",\"maximum\":0.5,\"multipleOf\":0.2,\"default\":0.4} | 0.4",
  })
  void equalBoundsAndFallbacksAtTheEdges(String property, String value) {
    if (value == null) {
      assertUnsupported(one(property, true), "required property `p`: no ");
    } else {
      assertArguments("{\"p\":" + value + "}", one(property, true));
    }
  }

  /**
   * Kills {@code Bounds.smallest} (746, {@code <} to {@code <=}, and {@code tries++} to {@code
   * tries--}): the search for a multiple stops after 1,000 of them. Here the first whole multiple of
   * 1.001 above the exclusive minimum 1001 is the 1,001st tried, 2002.
   */
  @Test
  void theSearchForAMultipleIsBounded() {
    assertUnsupported(one("{\"type\":\"integer\",\"exclusiveMinimum\":1001,\"multipleOf\":1.001}", true),
        "no integer of at least 1 satisfies > 1001, a multiple of 1.001");
    assertArguments("{\"p\":2002}", one("{\"type\":\"integer\",\"exclusiveMinimum\":1001,\"multipleOf\":1.001,\"default\":2002}", true));
  }

  /**
   * Kills {@code decimal} (808: both boundaries, and {@code precision - scale} changed to {@code
   * +}) and covers its refusal of NaN (803): a bound of up to 400 digits on either side of the point
   * is used, one beyond is refused.
   */
  @Test
  void boundsOfUpTo400DigitsAreUsed() {
    Synthesis huge = SchemaArguments.synthesize(numberSchema("minimum", new BigDecimal("1E+399")));
    assertEquals(MAPPER.readTree("{\"p\":1" + "0".repeat(399) + "}"),
        MAPPER.readTree(assertInstanceOf(Synthesized.class, huge, huge::toString).template().toString()));
    Synthesis fine = SchemaArguments.synthesize(numberSchema("multipleOf", new BigDecimal("1E-400")));
    assertEquals("{\"p\":1}", assertInstanceOf(Synthesized.class, fine, fine::toString).template().toString());
    for (Object refused : new Object[] {new BigDecimal("1E+400"), new BigDecimal("1E-401"), Double.NaN}) {
      Synthesis s = SchemaArguments.synthesize(numberSchema("multipleOf", refused));
      String why = assertInstanceOf(Unsupported.class, s, s::toString).why();
      assertTrue(why.contains("\"multipleOf\" is not a usable number"), why);
    }
  }

  /** Covers {@code decimal} (803) for the other integral classes, and a number class it does not know. */
  @Test
  void boundsOfEveryIntegralClassAreUsedAndOtherNumbersRefused() {
    for (Number n : new Number[] {(short) 3, (byte) 3, 3, 3L}) {
      Synthesis s = SchemaArguments.synthesize(numberSchema("minimum", n));
      assertEquals("{\"p\":3}", assertInstanceOf(Synthesized.class, s, s::toString).template().toString(), n.getClass()::getName);
    }
    Synthesis s = SchemaArguments.synthesize(numberSchema("minimum", new AtomicLong(3)));
    assertTrue(assertInstanceOf(Unsupported.class, s, s::toString).why().contains("\"minimum\" is not a usable number"));
  }

  /** A required number {@code p} with one keyword. */
  private static Map<String, Object> numberSchema(String keyword, Object value) {
    return Map.of("type", "object", "properties", Map.of("p", Map.of("type", "number", keyword, value)),
        "required", List.of("p"));
  }

  /**
   * Kills {@code plain} (818, {@code <} to {@code <=} and negated): a whole number of 64 bits is not
   * squeezed into a {@code long}.
   */
  @Test
  void aWholeNumberBeyondALongKeepsItsValue() {
    assertArguments("{\"p\":9223372036854775808}", one("{\"type\":\"integer\",\"minimum\":9223372036854775808}", true));
    assertArguments("{\"p\":9223372036854775807}", one("{\"type\":\"integer\",\"minimum\":9223372036854775807}", true));
  }

  /** Covers {@code inferred} for a property: its keywords give its type. */
  @Test
  void aPropertyWithoutATypeTakesTheTypeItsKeywordsGive() {
    assertArguments("{\"p\":{\"a\":\"{marker}\"}}", one("{\"required\":[\"a\"]}", true));
    assertArguments("{\"p\":[1]}", one("{\"items\":{\"type\":\"integer\"},\"minItems\":1}", true));
    assertArguments("{\"p\":\"{marker}\"}", one("{\"maxLength\":40}", true));
    assertUnsupported(one("{\"maxLength\":4}", true), "is longer than \"maxLength\" 4");
  }

  /** Required objects nested so that the innermost string is at {@code depth}. */
  private static String nestedSchema(int depth) {
    String s = "{\"type\":\"string\"}";
    for (int i = 1; i < depth; i++) {
      s = "{\"type\":\"object\",\"properties\":{\"n\":" + s + "},\"required\":[\"n\"]}";
    }
    return "{\"type\":\"object\",\"properties\":{\"n\":" + s + "},\"required\":[\"n\"]}";
  }

  private static String nestedValue(int depth) {
    return "{\"n\":".repeat(depth - 1) + "{\"n\":\"{marker}\"}" + "}".repeat(depth - 1);
  }

  /** The value at {@code p} of the arguments synthesised for one required string property. */
  private static String value(String property) {
    return MAPPER.readTree(synthesized(one(property, true)).toString()).path("p").stringValue();
  }

  /**
   * A string whose pattern the marker cannot match gets one generated to match it, the same on
   * every run, within its lengths, and never one holding a brace (the probe reads braces as
   * placeholders).
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {
      "^[A-Z]{2}$", "^\\d{4}-\\d{2}-\\d{2}$", "^(\\*|[0-5]?\\d) (\\*|[01]?\\d|2[0-3])$", "^[01]+$",
      "^(?:[0-9]{1,3}\\.){3}[0-9]{1,3}$", "^[gimsuy]*$", "^v\\d+\\.\\d+\\.\\d+$"})
  void aPatternTheMarkerCannotMatchGetsAGeneratedStringThatMatchesIt(String pattern) {
    String property = "{\"type\":\"string\",\"pattern\":" + MAPPER.writeValueAsString(pattern) + "}";
    String v = value(property);
    assertTrue(java.util.regex.Pattern.compile(pattern).matcher(v).find(), v + " matches " + pattern);
    assertEquals(v, value(property), "the same on every run");
  }

  @Test
  void aGeneratedStringKeepsTheLengthsAndNeverHoldsABrace() {
    String v = value("{\"type\":\"string\",\"pattern\":\"^[a-z]+$\",\"maxLength\":3}");
    assertTrue(v.matches("[a-z]{1,3}"), v);
    assertUnsupported(one("{\"type\":\"string\",\"pattern\":\"^\\\\{[a-z]\\\\}$\"}", true), "does not match the pattern");
    assertTrue(SchemaStrings.generated(Map.of("pattern", "^\\{[a-z]\\}$")).isEmpty());
    assertTrue(SchemaStrings.generated(Map.of()).isEmpty(), "no pattern, nothing generated");
    assertTrue(SchemaStrings.generated(Map.of("pattern", "x".repeat(501))).isEmpty(), "too long a pattern");
  }

  /** A string whose name means a well-known kind gets an ordinary value of it in the hinted candidate. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "expression   | Math expression to evaluate                      | 2+3*4",
      "expression   | Cron expression (5 fields: min hour dom mon dow)  | 0 12 * * 1",
      "ip           | IP address                                       | 192.168.1.10",
      "cidr         | CIDR notation                                    | 192.168.1.0/24",
      "date2        | Second date for diff                             | 2026-01-01",
      "startDate    | When                                             | 2026-01-01",
      "start_date   | When                                             | 2026-01-01",
      "sourceTimezone | Source zone                                    | UTC",
      "version2     | Second version                                   | 1.2.3",
      "range        | Semver range                                     | ^1.0.0",
      "token        | JWT token to decode                              | eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJjb3RlbmFudCJ9.",
      "number       | Number string to validate or generate check digit for | 79927398713",
      "from         | Source unit                                      | m",
      "color        | Color value                                      | #336699",
      "value        | Value to convert (string or number)              | 1",
  })
  void aNameThatMeansAWellKnownKindGetsAnOrdinaryValue(String name, String description, String value) {
    assertEquals(java.util.Optional.of(value), SchemaStrings.knownValue(name, description));
  }

  @Test
  void namesThatOnlyLookLikeAKnownKindGetNothing() {
    assertEquals(java.util.Optional.empty(), SchemaStrings.knownValue("update", "What to change"), "update is no date");
    assertEquals(java.util.Optional.empty(), SchemaStrings.knownValue("from", "Source base (2-36)"), "a base, not a unit");
    assertEquals(java.util.Optional.empty(), SchemaStrings.knownValue("token", "An API token"), "not a JWT");
    assertEquals(java.util.Optional.empty(), SchemaStrings.knownValue("range", null));
    assertEquals(java.util.Optional.empty(), SchemaStrings.knownValue("text", "Text to analyze"));
    // In a candidate: the hinted set takes it, the first (the marker's) does not.
    List<ArgumentTemplate> c = SchemaArguments.candidates(schema(one("{\"type\":\"string\",\"description\":\"IP address\"}", true)
        .replace("\"p\"", "\"ip\"")));
    assertEquals("{\"ip\":\"{marker}\"}", c.get(0).toString());
    assertTrue(c.stream().anyMatch(t -> t.toString().equals("{\"ip\":\"192.168.1.10\"}")), c.toString());
  }
}
