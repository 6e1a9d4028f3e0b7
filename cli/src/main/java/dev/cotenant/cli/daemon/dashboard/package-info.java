/**
 * The daemon's dashboard: {@link dev.cotenant.cli.daemon.dashboard.DashboardHandler} serves the
 * page ({@code index.html}, {@code app.js}, {@code style.css} from {@code dashboard/} on the class
 * path) at the root of the daemon's HTTP listener. The page holds no secret; it reads the bearer
 * token from its URL fragment and calls the daemon's {@code /api} with it.
 */
@NullMarked
package dev.cotenant.cli.daemon.dashboard;

import org.jspecify.annotations.NullMarked;
