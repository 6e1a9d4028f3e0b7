package dev.cotenant.gateway.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The argument sets the whole-surface probe tries in turn ({@link SchemaArguments#candidates}),
 * the examples it reads from a description, and the schema check each candidate passes
 * ({@link SchemaCheck}).
 */
class ArgumentCandidatesTest {
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @SuppressWarnings("unchecked")
  private static Map<String, Object> schema(String json) {
    return MAPPER.readValue(json, Map.class);
  }

  private static List<String> texts(List<ArgumentTemplate> templates) {
    return templates.stream().map(ArgumentTemplate::toString).toList();
  }

  @Test
  void aDescriptionNamesItsExamples() {
    assertEquals(List.of("Asia/Tokyo"), SchemaStrings.describedExamples("IANA timezone (e.g. Asia/Tokyo, America/New_York)"));
    assertEquals(List.of("2025-03-23 12:30:00"),
        SchemaStrings.describedExamples("Date and time in 24-hour format. e.g. 2025-03-23 12:30:00"));
    assertEquals(List.of("192.168.1.0/24"), SchemaStrings.describedExamples("CIDR notation (e.g. 192.168.1.0/24)"));
    assertEquals(List.of("json"), SchemaStrings.describedExamples("The output format, for example json or yaml."));
    assertEquals(List.of("X:1"), SchemaStrings.describedExamples("ABC notation such as 'X:1'"));
    assertEquals(List.of("hex", "rgb"), SchemaStrings.describedExamples("Either \"hex\" or \"rgb\""));
    assertEquals(List.of(), SchemaStrings.describedExamples("Math expression to evaluate"));
    assertEquals(List.of(), SchemaStrings.describedExamples(42));
  }

  @Test
  void theMarkerFirstThenHintsThenOnlyTheRequiredProperties() {
    Map<String, Object> s = schema("{\"type\":\"object\",\"properties\":{"
        + "\"tz\":{\"type\":\"string\",\"description\":\"IANA time zone, e.g. Europe/Paris\"},"
        + "\"note\":{\"type\":\"string\"},"
        + "\"fmt\":{\"type\":\"string\",\"default\":\"short\"}},\"required\":[\"tz\"]}");
    assertEquals(List.of("{\"tz\":\"{marker}\",\"note\":\"{marker}\",\"fmt\":\"{marker}\"}",
            "{\"tz\":\"Europe/Paris\",\"note\":\"{marker}\",\"fmt\":\"short\"}",
            "{\"tz\":\"Europe/Paris\"}"),
        texts(SchemaArguments.candidates(s)));
  }

  @Test
  void candidatesThatAreTheSameAreGivenOnceAndAHintThatBreaksThePatternIsNotUsed() {
    Map<String, Object> plain = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
        + "\"required\":[\"text\"]}");
    assertEquals(List.of("{\"text\":\"{marker}\"}"), texts(SchemaArguments.candidates(plain)));
    Map<String, Object> patterned = schema("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\","
        + "\"pattern\":\"^[a-z0-9-]+$\",\"description\":\"e.g. NOT VALID\"}},\"required\":[\"n\"]}");
    assertEquals(List.of("{\"n\":\"{marker}\"}"), texts(SchemaArguments.candidates(patterned)));
    assertEquals(List.of(), SchemaArguments.candidates(schema("{\"type\":\"array\"}")));
  }

  @Test
  void theSchemaCheckRefusesWhatTheSchemaRefusesAndCannotBeFooledIntoFetching() {
    SchemaCheck check = SchemaCheck.of(schema("{\"type\":\"object\",\"properties\":{"
        + "\"unit\":{\"enum\":[\"c\",\"f\"]},\"when\":{\"type\":\"string\",\"format\":\"date\"},"
        + "\"n\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"unit\"]}"));
    assertEquals(Optional.empty(), check.problem(ArgumentTemplate.of(Map.of("unit", "c", "when", "2026-01-01", "n", 1))));
    assertTrue(check.problem(ArgumentTemplate.of(Map.of("unit", "k"))).orElseThrow().contains("/unit"));
    assertTrue(check.problem(ArgumentTemplate.of(Map.of("unit", "c", "when", "{marker}"))).isPresent(),
        "a marker is no date");
    assertTrue(check.problem(ArgumentTemplate.of(Map.of("when", "2026-01-01"))).isPresent(), "a required property is missing");
    SchemaCheck remote = SchemaCheck.of(schema("{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":"
        + "\"http://127.0.0.1:9/schema.json\"}}}"));
    assertFalse(remote.problem(ArgumentTemplate.of(Map.of("x", "y"))).isPresent(),
        "a schema whose reference cannot be loaded checks nothing, and nothing is fetched");
  }

  @Test
  void aNameThatMeansADirectoryOrAFileGetsAPathInTheCallersScratchDirectory() {
    assertEquals(Optional.of("{scratch}"), SchemaStrings.pathFor("directory"));
    assertEquals(Optional.of("{scratch}"), SchemaStrings.pathFor("repo_dir"));
    assertEquals(Optional.of("{scratch}"), SchemaStrings.pathFor("workDir"));
    assertEquals(Optional.of("{scratch}/{marker}.txt"), SchemaStrings.pathFor("file_path"));
    assertEquals(Optional.of("{scratch}/{marker}.txt"), SchemaStrings.pathFor("path"));
    assertEquals(Optional.empty(), SchemaStrings.pathFor("name"));
    Map<String, Object> s = schema("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
        + "\"description\":\"e.g. src/index.ts\"},\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}");
    assertEquals(List.of("{\"path\":\"{marker}\",\"content\":\"{marker}\"}",
        "{\"path\":\"{scratch}/{marker}.txt\",\"content\":\"{marker}\"}"), texts(SchemaArguments.candidates(s)),
        "an absolute path of the caller's own before the description's relative example");
    ArgumentTemplate t = SchemaArguments.candidates(s).get(1);
    assertTrue(t.carriesScratch());
    assertEquals(Map.of("path", "/s/alpha-1/alpha-1.txt", "content", "alpha-1"), t.render("alpha-1", "w", "/s/alpha-1"));
    assertEquals(Map.of("path", "w/alpha-1.txt", "content", "alpha-1"), t.render("alpha-1", "w"),
        "without a scratch directory, the workspace value");
  }
}
