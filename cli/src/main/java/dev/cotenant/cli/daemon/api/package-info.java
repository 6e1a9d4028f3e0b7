/**
 * The daemon's JSON API under {@code /api}: {@link dev.cotenant.cli.daemon.api.ApiHandler} serves
 * every route of the contract (rows, measure jobs, hazards, stub, seed, backends, probe,
 * registration, the OpenAPI document) over the daemon's runtime, with the same JSON as the
 * commands' {@code --json}; on TCP behind the {@link dev.cotenant.cli.daemon.http.HttpGuard}, on
 * {@code api.sock} ({@link dev.cotenant.cli.daemon.ApiSocket}) behind the socket's file mode.
 * The routes are grouped by what they act on (configuration files, hazards, backends, probe and
 * registration, measure and share jobs); their JSON is {@link dev.cotenant.cli.views}'.
 * See {@code docs/api.md}.
 */
@NullMarked
package dev.cotenant.cli.daemon.api;

import org.jspecify.annotations.NullMarked;
