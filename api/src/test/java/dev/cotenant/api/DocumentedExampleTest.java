package dev.cotenant.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The worked example in docs/architecture.md, read from the document itself: the evidence its
 * code block builds is assessed, and the verdict must be the one its comments and the paragraph
 * after it state. Editing either the core or the document alone fails here.
 */
class DocumentedExampleTest {

  private static final Pattern FINDING =
      Pattern.compile("Finding\\.of\\(\"([^\"]+)\",\\s*ReasonCode\\.([A-Z_]+)(?:,\\s*\"([^\"]*)\")?\\)");
  private static final Pattern HAZARD = Pattern.compile("HazardCode\\.([A-Z_]+)");

  /** Tests run in the module's directory; the repository root is its parent. */
  private static String architecture() throws IOException {
    Path doc = Path.of("").toAbsolutePath().getParent().resolve("docs").resolve("architecture.md");
    return Files.readString(doc, StandardCharsets.UTF_8);
  }

  private static Matcher find(String regex, String text) {
    Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(text);
    assertTrue(m.find(), "docs/architecture.md no longer matches " + regex);
    return m;
  }

  @Test
  void theTypicalDeclaredServer() throws IOException {
    String doc = architecture();
    String block = find("`Assessor\\.assess` is a static.*?```java\\n(.*?)```", doc).group(1);

    String ledger = find("new Evidence\\(\\s*List\\.of\\(([^)]*)\\)", block).group(1);
    List<HazardCode> hazards = new ArrayList<>();
    for (Matcher h = HAZARD.matcher(ledger); h.find(); ) {
      hazards.add(HazardCode.valueOf(h.group(1)));
    }
    List<Finding> findings = new ArrayList<>();
    for (Matcher f = FINDING.matcher(block); f.find(); ) {
      ReasonCode code = ReasonCode.valueOf(f.group(2));
      findings.add(f.group(3) == null ? Finding.of(f.group(1), code) : Finding.of(f.group(1), code, f.group(3)));
    }
    assertEquals(5, findings.size(), "the example's findings as read from the document: " + findings);
    PreflightOutcome preflight =
        switch (find("PreflightOutcome\\.(\\w+)\\(\\)", block).group(1)) {
          case "passed" -> PreflightOutcome.passed();
          default -> throw new AssertionError("the test reads only PreflightOutcome.passed() so far");
        };
    boolean handshake = Boolean.parseBoolean(find("(true|false)\\);[^\\n]*\\nVerdict v", block).group(1));

    Evidence evidence = new Evidence(hazards, findings, preflight, handshake);
    Verdict v = Assessor.assess(evidence);
    assertEquals(Strength.valueOf(find("v\\.strength\\(\\)\\s*== Strength\\.(\\w+)", block).group(1)), v.strength());
    assertEquals(Boolean.parseBoolean(find("v\\.recommendStub\\(\\)\\s*== (true|false)", block).group(1)), v.recommendStub());
    assertEquals(Boolean.parseBoolean(find("v\\.recommendShare\\(\\)\\s*== (true|false)", block).group(1)), v.recommendShare());
    String reasons = find("v\\.reasons\\(\\)\\s*== (\\[.*?\\])", block).group(1).replaceAll("\\s*\\n//\\s*", " ");
    assertEquals(reasons, v.reasons().toString());

    Matcher refutedText =
        find("Add `HazardCode\\.([A-Z_]+)` to the observations and the same server is\\s+`(\\w+)`, recommending neither", doc);
    Verdict refuted =
        Assessor.assess(
            new Evidence(
                List.of(HazardCode.valueOf(refutedText.group(1))),
                evidence.findings(),
                evidence.preflight(),
                evidence.handshakeObserved()));
    assertEquals(Strength.valueOf(refutedText.group(2).toUpperCase(Locale.ROOT)), refuted.strength());
    assertFalse(refuted.recommendStub());
    assertFalse(refuted.recommendShare());
    assertEquals(
        "observed_hazard(" + HazardCode.valueOf(refutedText.group(1)).wireName() + ")",
        refuted.reasons().get(0).toString());
  }
}
