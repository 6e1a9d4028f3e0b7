package dev.cotenant.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cotenant.api.ExecutionIdentity;
import dev.cotenant.gateway.config.ConfiguredServer;
import dev.cotenant.gateway.config.McpConfigReader;
import dev.cotenant.gateway.identity.ExecutionIdentities;
import dev.cotenant.providers.records.FileHazardLedger;
import dev.cotenant.providers.records.FilePreflightCache;
import dev.cotenant.spi.ProviderConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code cotenant assess --json} against records pre-populated from fixtures
 * ({@code src/test/resources/cli/golden/}), compared with the golden output byte for byte
 * (key order included). The fixtures' {@code ${cacheKey:NAME}} and {@code ${ledgerKey:NAME}}
 * placeholders are filled with each server's current launch identity, so every strength the
 * records can produce appears: declared, measured, no_objection, refuted, unknown (a row under
 * another identity, no row at all, a disabled server, a pre-flight that could not run and says
 * why) and disqualified.
 */
class AssessGoldenTest {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(cacheKey|ledgerKey):([^}]+)}");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path tmp;

  private static String resource(String name) throws IOException {
    try (InputStream in = AssessGoldenTest.class.getResourceAsStream("/cli/golden/" + name)) {
      if (in == null) {
        throw new IOException("test resource /cli/golden/" + name + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void assessJsonMatchesTheGoldenFile() throws Exception {
    CliHarness cli = new CliHarness(tmp);
    Path config = cli.write("mcp.json", resource("mcp.json"));
    ExecutionIdentities ids = ExecutionIdentities.fromConfig(ProviderConfig.empty(), cli.env);
    List<ConfiguredServer> servers = new McpConfigReader().readFile(config);
    Files.createDirectories(cli.records);
    for (String file : List.of(FilePreflightCache.FILE_NAME, FileHazardLedger.FILE_NAME)) {
      Matcher m = PLACEHOLDER.matcher(resource(file));
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String name = m.group(2);
        ExecutionIdentity id =
            ids.identify(servers.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().description());
        String value = m.group(1).equals("cacheKey") ? id.cacheKey().replace("\0", "\\u0000") : id.ledgerKey();
        m.appendReplacement(sb, Matcher.quoteReplacement(value));
      }
      m.appendTail(sb);
      Files.writeString(cli.records.resolve(file), sb.toString());
    }

    CliHarness.Result r = cli.run("assess", "mcp.json", "--json");

    assertEquals(0, r.code(), r.err());
    assertEquals("", r.err());
    String golden = JSON.writeValueAsString(JSON.readTree(resource("assess.json"))) + "\n";
    assertEquals(golden, r.out());
    assertEquals(0, cli.transport.created.get(), "assess spawns nothing");
  }
}
