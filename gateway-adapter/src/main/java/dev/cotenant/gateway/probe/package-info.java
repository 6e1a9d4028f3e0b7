/**
 * The statelessness probe and the records of what it saw (docs/statelessness.md).
 *
 * <ul>
 *   <li>{@link dev.cotenant.gateway.probe.SurfaceProbe} probes a server's WHOLE SURFACE: every
 *       listed tool (arguments from {@link dev.cotenant.gateway.probe.ProbePlan} or synthesised
 *       from the tool's input schema by {@code SchemaArguments}, {@code SchemaStrings} and
 *       {@code SchemaNumbers}), the session-visible listings, notifications and server requests,
 *       by two callers on dedicated backends and on one shared backend, comparing their answers
 *       token by token ({@code AnswerDiff}, {@code TokenAlignment}, {@code AnswerValues},
 *       {@code DiffRendering}); it reports in a {@link dev.cotenant.gateway.probe.SurfaceReport}.
 *       One run ({@code SurfaceRun}) orchestrates the phases; {@code ToolChoice} and
 *       {@code Calibration} decide what is called, {@code LockstepListings} pages the listings
 *       ({@link dev.cotenant.spi.rpc.ListingPager}), {@code SurfaceReporter} builds the report,
 *       {@code Redactor} keeps secrets out of it, {@code ScratchDirectories} gives each backend a
 *       working directory, {@code ProbeBackend} handles what a backend sends on its own, and
 *       {@code SurfaceConfirmation} weighs a replay.
 *   <li>{@link dev.cotenant.gateway.probe.StatelessnessProbe} probes ONE tool by its markers; its
 *       pass is supporting evidence only.
 *   <li>{@link dev.cotenant.gateway.probe.Statelessness} records what either saw (hazards in the
 *       ledger, a pass in the concurrency records) and registers a server {@code shared} only on
 *       the strength of a whole-surface pass under its current identity.
 * </ul>
 *
 * <p>Both probes read each answer once, as a {@link dev.cotenant.spi.rpc.RpcMessage.Response}.
 */
@NullMarked
package dev.cotenant.gateway.probe;

import org.jspecify.annotations.NullMarked;
