/**
 * What the CLI shows, built once for every surface that shows it: {@link dev.cotenant.cli.views.Output}
 * (tables and JSON, the rows document), {@link dev.cotenant.cli.views.SurfaceOutput} (a whole-surface
 * probe report), {@link dev.cotenant.cli.views.HazardsView}, {@link dev.cotenant.cli.views.SeedView},
 * {@link dev.cotenant.cli.views.RegisterView} and {@link dev.cotenant.cli.views.IoFailure}. Each
 * command's {@code --json} and the daemon's API answer with the same JSON because both call these;
 * the package depends on neither.
 */
@NullMarked
package dev.cotenant.cli.views;

import org.jspecify.annotations.NullMarked;
