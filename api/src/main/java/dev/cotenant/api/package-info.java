/**
 * The Cotenant model and its fixed core.
 *
 * <p>This package depends on the JDK only. The core ({@link dev.cotenant.api.Assessor}) does no
 * IO, reads no clock, no environment and no configuration: everything arrives as arguments, so
 * the ranking {@code refuted > disqualified > declared > measured > no_objection > unknown} is
 * proven by unit and property tests rather than by inspection.
 */
@NullMarked
package dev.cotenant.api;

import org.jspecify.annotations.NullMarked;
