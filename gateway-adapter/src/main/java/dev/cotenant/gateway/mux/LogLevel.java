package dev.cotenant.gateway.mux;

import java.util.Locale;
import java.util.Optional;

/** The severities of {@code notifications/message} in RFC 5424 order, finest first. */
public enum LogLevel {
  DEBUG,
  INFO,
  NOTICE,
  WARNING,
  ERROR,
  CRITICAL,
  ALERT,
  EMERGENCY;

  private final String wire = name().toLowerCase(Locale.ROOT);

  /** The level as MCP writes it. */
  public String wire() {
    return wire;
  }

  /** The level named {@code value}; empty for anything else. */
  public static Optional<LogLevel> parse(Object value) {
    for (LogLevel l : values()) {
      if (l.wire.equals(value)) {
        return Optional.of(l);
      }
    }
    return Optional.empty();
  }

  /** Every wire name, finest first, for messages. */
  public static String names() {
    StringBuilder b = new StringBuilder();
    for (LogLevel l : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(l.wire);
    }
    return b.toString();
  }
}
