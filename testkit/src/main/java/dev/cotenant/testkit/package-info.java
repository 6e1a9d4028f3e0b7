/**
 * Cotenant's test kit, for third-party provider authors and for Cotenant's own tests: contract
 * suites for every SPI ({@code contract}), a scriptable fake stdio MCP server ({@code server}), a
 * process-leak JUnit extension ({@code process}) and record stores in memory ({@code records}).
 * Depends on {@code cotenant-api}, {@code cotenant-spi} and JUnit Jupiter's API at compile scope;
 * add it to a project's test scope.
 */
@NullMarked
package dev.cotenant.testkit;

import org.jspecify.annotations.NullMarked;
