/**
 * The statelessness probe and the records of what it saw (docs/statelessness.md).
 *
 * <ul>
 *   <li>{@link dev.cotenant.gateway.probe.SurfaceProbe} probes a server's WHOLE SURFACE: every
 *       listed tool (arguments from {@link dev.cotenant.gateway.probe.ProbePlan} or synthesised
 *       from the tool's input schema), the session-visible listings, notifications and server
 *       requests, by two callers on dedicated backends and on one shared backend, comparing
 *       their answers token by token ({@code AnswerDiff}); it reports in a
 *       {@link dev.cotenant.gateway.probe.SurfaceReport}.
 *   <li>{@link dev.cotenant.gateway.probe.StatelessnessProbe} probes ONE tool by its markers; its
 *       pass is supporting evidence only.
 *   <li>{@link dev.cotenant.gateway.probe.Statelessness} records what either saw (hazards in the
 *       ledger, a pass in the concurrency records) and registers a server {@code shared} only on
 *       the strength of a whole-surface pass under its current identity.
 * </ul>
 */
@NullMarked
package dev.cotenant.gateway.probe;

import org.jspecify.annotations.NullMarked;
