package dev.cotenant.gateway.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;

/**
 * How a user laid out a JSON file, so that rewriting it keeps the look they chose: the
 * indentation unit (a tab or N spaces), a space before the colon or not, the line ending, and a
 * final newline.
 *
 * @param indent one level of indentation
 * @param spaceBeforeColon true for {@code "name" : value}
 * @param eol the line ending
 * @param finalNewline true when the file ended with a line ending
 */
record JsonLayout(String indent, boolean spaceBeforeColon, String eol, boolean finalNewline) {
  /** The layout of a new file: two spaces, {@code "name": value}, LF, a final newline. */
  static final JsonLayout DEFAULT = new JsonLayout("  ", false, "\n", true);

  private static final Pattern INDENTED = Pattern.compile("(?m)^([ \\t]+)[\"{\\[\\]}]");
  private static final Pattern SPACE_BEFORE_COLON = Pattern.compile("\"[ \\t]+:");

  /** The layout of {@code text}; {@link #DEFAULT} for what it does not show. */
  static JsonLayout of(String text) {
    String indent = DEFAULT.indent;
    Matcher m = INDENTED.matcher(text);
    if (m.find()) {
      String lead = m.group(1);
      indent = lead.charAt(0) == '\t' ? "\t" : " ".repeat(lead.length());
    }
    String eol = text.contains("\r\n") ? "\r\n" : "\n";
    boolean finalNewline = text.isEmpty() || text.endsWith("\n");
    return new JsonLayout(indent, SPACE_BEFORE_COLON.matcher(text).find(), eol, finalNewline);
  }

  /** A pretty printer writing this layout. */
  DefaultPrettyPrinter printer() {
    DefaultIndenter indenter = new DefaultIndenter(indent, eol);
    Separators separators = Separators.createDefaultInstance()
        .withObjectNameValueSpacing(spaceBeforeColon ? Separators.Spacing.BOTH : Separators.Spacing.AFTER);
    return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
  }
}
