package dev.cotenant.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

/**
 * Stateless, but its answers are figures no two runs agree on, except by chance: the answers a
 * probe must not take for a leak. {@code memory_use} answers the machine's live memory figures
 * ({@code MemFree}, {@code MemAvailable}, {@code Cached} from {@code /proc/meminfo}; not the
 * load average, whose few digits often agree by chance, nor {@code /proc/loadavg}'s last pid,
 * which inside a pid namespace counts the process's own threads); {@code records} answers 250 records generated once, at random, when the process
 * starts ({@code id=<8 hex digits> score=<0..999999>}, one line each). Nothing a caller sends is
 * remembered; both tools are annotated {@code readOnlyHint: true}.
 */
public final class LiveFiguresServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-live-figures";

  /** How many records {@code records} answers. */
  public static final int RECORDS = 250;

  private static final String RECORD_TEXT = makeRecords();

  private LiveFiguresServer() {}

  /**
   * Serves over stdio until stdin closes.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    StdioServerHost.runTools(NAME, LiveFiguresServer::memoryUse, LiveFiguresServer::records);
  }

  private static String makeRecords() {
    SecureRandom random = new SecureRandom();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < RECORDS; i++) {
      sb.append(String.format("record %d: id=%08x score=%d%n", i, random.nextInt(), random.nextInt(1_000_000)));
    }
    return sb.toString();
  }

  private static SyncToolSpecification memoryUse() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("memory_use", "Returns the machine's live memory figures.",
            List.of(), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> {
          try {
            StringBuilder sb = new StringBuilder();
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
              if (line.startsWith("MemFree:") || line.startsWith("MemAvailable:") || line.startsWith("Cached:")) {
                sb.append(line.replaceAll("\\s+", " ")).append('\n');
              }
            }
            return StdioServerHost.text(sb.toString());
          } catch (IOException e) {
            return StdioServerHost.error("cannot read the machine's figures: " + e.getMessage());
          }
        });
  }

  private static SyncToolSpecification records() {
    return StdioServerHost.tool(
        StdioServerHost.stringTool("records", "Returns the 250 records this process generated when it started.",
            List.of(), List.of(), StdioServerHost.readOnlyHints()),
        (exchange, request) -> StdioServerHost.text(RECORD_TEXT));
  }
}
