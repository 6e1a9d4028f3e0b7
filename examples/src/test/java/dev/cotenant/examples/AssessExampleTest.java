package dev.cotenant.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.api.Strength;
import dev.cotenant.api.Verdict;
import dev.cotenant.gateway.Cotenant;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class AssessExampleTest {
  @Test
  void eachCaseReachesTheStrengthItIllustrates() {
    List<AssessExample.Case> cases = AssessExample.cases();
    List<Verdict> verdicts = AssessExample.assessAll(Cotenant.builder().config(AssessExample.CONFIG).build(), cases);
    Map<String, Strength> byName =
        cases.stream()
            .collect(Collectors.toMap(c -> c.server().name(), c -> verdicts.get(cases.indexOf(c)).strength()));
    assertEquals(
        Map.of(
            "notes", Strength.DECLARED,
            "git", Strength.MEASURED,
            "prompts", Strength.NO_OBJECTION,
            "fresh-install", Strength.UNKNOWN,
            "remote-search", Strength.DISQUALIFIED,
            "desktop-control", Strength.DISQUALIFIED,
            "browser", Strength.REFUTED),
        byName);
  }

  @Test
  void mainPrintsOneAlignedRowPerCase() {
    PrintStream original = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      AssessExample.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    List<String> lines = buf.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(1 + AssessExample.cases().size(), lines.size());
    assertTrue(lines.get(0).startsWith("SERVER "), lines.get(0));
    int strengthColumn = lines.get(0).indexOf("STRENGTH");
    assertTrue(lines.get(1).startsWith("notes"), lines.get(1));
    assertEquals("declared", lines.get(1).substring(strengthColumn).split(" ")[0]);
    assertTrue(
        lines.stream().anyMatch(l -> l.contains("session_bound_by_construction(host-managed:")),
        "the custom classifier was discovered from META-INF/services");
  }
}
