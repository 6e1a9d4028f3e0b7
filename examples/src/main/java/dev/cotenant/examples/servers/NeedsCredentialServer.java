package dev.cotenant.examples.servers;

import java.util.List;

/**
 * A server that needs a credential from its environment and cannot start without it: when
 * {@code SAMPLE_API_TOKEN} is unset or blank it writes one clear line to stderr and exits with
 * status {@value #MISSING_CREDENTIAL_EXIT}, before reading anything. A pre-flight on a host that
 * lacks the token could not ask the server anything, which is "not run", never "unsafe".
 *
 * <p>With the token present it serves one tool, {@code whoami}, which reports that a credential
 * is configured without ever revealing it.
 */
public final class NeedsCredentialServer {

  /** The {@code serverInfo.name} this server reports. */
  public static final String NAME = "cotenant-sample-needs-credential";

  /** The environment variable holding the credential. */
  public static final String TOKEN_ENV = "SAMPLE_API_TOKEN";

  /** The exit status when the credential is missing. */
  public static final int MISSING_CREDENTIAL_EXIT = 2;

  private NeedsCredentialServer() {}

  /**
   * Serves over stdio until stdin closes, or exits at once when the credential is missing.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    String token = System.getenv(TOKEN_ENV);
    if (token == null || token.isBlank()) {
      System.err.println(NAME + ": environment variable " + TOKEN_ENV
          + " is not set; this server needs an API token to start");
      System.exit(MISSING_CREDENTIAL_EXIT);
      return;
    }
    StdioServerHost.runTools(NAME, () -> StdioServerHost.tool(
        StdioServerHost.stringTool("whoami", "Reports whether a credential is configured.", List.of(), List.of()),
        (exchange, request) -> StdioServerHost.text("authenticated with " + TOKEN_ENV + " (" + token.length()
            + " characters)")));
  }
}
