package dev.cotenant.cli.route;

import dev.cotenant.gateway.config.ConfigException;
import dev.cotenant.gateway.config.LockedJsonFile;
import dev.cotenant.gateway.config.McpConfigReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A client's MCP configuration file as text, with the place of every server entry in it, so an
 * entry can be replaced without touching anything else: comments (VS Code's JSONC), trailing
 * commas, key order, number spelling and the layout of the rest of the file stay byte for byte.
 * A replacement is laid out like the file (its indentation unit, {@code "name": value} or
 * {@code "name" : value}, its line ending), indented to the entry's line, and on one line when
 * the entry it replaces was. Comments inside a replaced entry go with it.
 *
 * <p>{@link #write} replaces the file under the lock every Cotenant writer of it takes
 * ({@link LockedJsonFile}), atomically, through a symbolic link to its target and keeping its
 * permission bits, and refuses when the file is no longer the text it was read as. Immutable.
 */
public final class ConfigText {
  /** The maps a server entry may sit in: {@code mcpServers}, then VS Code's {@code servers}. */
  public static final List<String> MAPS = List.of("mcpServers", "servers");

  private static final JsonMapper LENIENT =
      JsonMapper.builder(
              JsonFactory.builder()
                  .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
                  .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
                  .build())
          .build();
  private static final Pattern INDENTED = Pattern.compile("(?m)^([ \\t]+)[\"{\\[\\]}]");
  private static final Pattern SPACE_BEFORE_COLON = Pattern.compile("\"[ \\t]+:");

  /** Where one entry's value lies in the text: {@code [start, end)}. */
  private record Span(int start, int end) {}

  /** One entry: the map it is in and its name. */
  public record Slot(String map, String name) {}

  private final Path file;
  private final String text;
  private final ObjectNode root;
  private final Map<Slot, Span> spans;

  /** The file's layout, read once: each rendered entry follows it (per entry, a scan of a large file was quadratic). */
  private final String unit;
  private final boolean spaceBeforeColon;
  private final String eol;

  private ConfigText(Path file, String text, ObjectNode root, Map<Slot, Span> spans) {
    this.file = file;
    this.text = text;
    this.root = root;
    this.spans = spans;
    Matcher m = INDENTED.matcher(text);
    String u = "  ";
    if (m.find()) {
      String lead = m.group(1);
      u = lead.charAt(0) == '\t' ? "\t" : " ".repeat(lead.length());
    }
    this.unit = u;
    this.spaceBeforeColon = SPACE_BEFORE_COLON.matcher(text).find();
    this.eol = text.contains("\r\n") ? "\r\n" : "\n";
  }

  /**
   * Reads {@code file} as UTF-8 text. Call after {@link McpConfigReader} accepted the file: this
   * only adds where each entry is.
   *
   * @throws ConfigException naming the file and the problem
   */
  public static ConfigText read(Path file) throws ConfigException {
    String text;
    try {
      byte[] bytes = Files.readAllBytes(file);
      text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new ConfigException(file, "is not UTF-8 text");
    } catch (IOException e) {
      throw new ConfigException(file, "cannot read: " + e.getMessage(), e);
    }
    return of(file, text);
  }

  /**
   * {@code text} as the content of {@code file}.
   *
   * @throws ConfigException when the text is not a JSON object
   */
  public static ConfigText of(Path file, String text) throws ConfigException {
    ObjectNode root;
    Map<Slot, Span> spans = new LinkedHashMap<>();
    try {
      JsonNode node = LENIENT.readTree(text);
      if (node == null || !node.isObject()) {
        throw new ConfigException(file, "expected a JSON object at the top level");
      }
      root = (ObjectNode) node;
      try (JsonParser p = LENIENT.createParser(text)) {
        p.nextToken();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
          String key = p.currentName();
          JsonToken value = p.nextToken();
          if (MAPS.contains(key) && value == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
              String name = p.currentName();
              JsonToken entry = p.nextToken();
              int start = (int) p.currentTokenLocation().getCharOffset();
              p.skipChildren();
              if (entry == JsonToken.START_OBJECT) {
                spans.put(new Slot(key, name), new Span(start, (int) p.currentTokenLocation().getCharOffset() + 1));
              }
            }
          } else {
            p.skipChildren();
          }
        }
      }
    } catch (JacksonException e) {
      throw new ConfigException(file, "malformed JSON: " + e.getOriginalMessage(), e);
    }
    return new ConfigText(file, text, root, spans);
  }

  /** The file. */
  public Path file() {
    return file;
  }

  /** The text. */
  public String text() {
    return text;
  }

  /** The map {@code key} ({@code mcpServers} or {@code servers}), when the file has it as an object. */
  public Optional<ObjectNode> map(String key) {
    JsonNode n = root.get(key);
    return n != null && n.isObject() ? Optional.of((ObjectNode) n) : Optional.empty();
  }

  /**
   * The text with each entry of {@code replacements} (which must be entries this file holds as
   * objects) replaced by its new value.
   */
  public String with(Map<Slot, ? extends JsonNode> replacements) {
    return with(replacements, Map.of());
  }

  /**
   * As {@link #with(Map)}, a slot in {@code verbatim} taking that text as it is (an entry's
   * original text, comments and layout included) instead of its value rendered.
   */
  public String with(Map<Slot, ? extends JsonNode> replacements, Map<Slot, String> verbatim) {
    List<Map.Entry<Span, String>> edits = new ArrayList<>();
    replacements.forEach((slot, value) -> {
      Span span = spans.get(slot);
      if (span == null) {
        throw new IllegalArgumentException("no entry " + slot + " in " + file);
      }
      edits.add(Map.entry(span, verbatim.containsKey(slot) ? verbatim.get(slot) : render(value, span)));
    });
    edits.sort(Comparator.comparingInt((Map.Entry<Span, String> e) -> e.getKey().start()).reversed());
    StringBuilder sb = new StringBuilder(text);
    for (Map.Entry<Span, String> e : edits) {
      sb.replace(e.getKey().start(), e.getKey().end(), e.getValue());
    }
    return sb.toString();
  }

  /** The text of the entry at {@code slot}, as the file holds it; empty when there is none. */
  public Optional<String> textOf(Slot slot) {
    Span span = spans.get(slot);
    return span == null ? Optional.empty() : Optional.of(text.substring(span.start(), span.end()));
  }

  /**
   * True when {@code entryText} (an entry's value as a file held it) reads, as this class reads a
   * file, as {@code value}: a kept text that no longer matches its entry is not restored.
   */
  public static boolean reads(String entryText, JsonNode value) {
    try {
      return LENIENT.readTree(entryText).equals(value);
    } catch (RuntimeException e) {
      return false;
    }
  }

  private String render(JsonNode value, Span at) {
    boolean oneLine = text.substring(at.start(), at.end()).indexOf('\n') < 0;
    Separators separators = Separators.createDefaultInstance()
        .withObjectNameValueSpacing(spaceBeforeColon ? Separators.Spacing.BOTH : Separators.Spacing.AFTER);
    DefaultPrettyPrinter printer = new DefaultPrettyPrinter(separators);
    if (oneLine) {
      printer = printer.withObjectIndenter(new DefaultPrettyPrinter.FixedSpaceIndenter())
          .withArrayIndenter(new DefaultPrettyPrinter.FixedSpaceIndenter());
    } else {
      DefaultIndenter indenter = new DefaultIndenter(unit, "\n");
      printer = printer.withObjectIndenter(indenter).withArrayIndenter(indenter);
    }
    String json = LENIENT.writer().with(printer).writeValueAsString(value);
    if (oneLine) {
      return json;
    }
    int lineStart = text.lastIndexOf('\n', at.start()) + 1;
    int i = lineStart;
    while (i < at.start() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
      i++;
    }
    return json.replace("\n", eol + text.substring(lineStart, i));
  }

  /**
   * Replaces {@code file}'s content with {@code replacement}, provided it still reads as
   * {@code expected} ({@link LockedJsonFile#replaceText}: the file's lock, an atomic rename, the
   * target of a symbolic link, its permission bits).
   *
   * @throws ConfigException when the file changed since it was read (nothing is written), or
   *     cannot be read, locked or written
   */
  public static void write(Path file, String expected, String replacement) throws ConfigException {
    new LockedJsonFile(file).replaceText(expected, replacement);
  }

}
