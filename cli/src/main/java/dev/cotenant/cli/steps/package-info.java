/**
 * What a command does that the daemon's API does too, in one place for both surfaces:
 * {@link dev.cotenant.cli.steps.ShareSteps} (the steps of {@code cotenant share} and of
 * {@code POST /api/share}) and {@link dev.cotenant.cli.steps.MeasurePass} (how a measurement pass
 * runs). Depends on {@link dev.cotenant.cli.views} for what it shows, never on the command classes
 * or the daemon.
 */
@NullMarked
package dev.cotenant.cli.steps;

import org.jspecify.annotations.NullMarked;
