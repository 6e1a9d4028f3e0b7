/**
 * The statelessness probe and concurrency records (DESIGN §7): {@link
 * dev.cotenant.gateway.probe.StatelessnessProbe} runs two callers on one backend process,
 * {@link dev.cotenant.gateway.probe.Statelessness} records what it saw (a leak in the hazard
 * ledger, a pass in the concurrency records) and registers a server {@code shared} only on the
 * strength of a pass under its current identity, and {@link
 * dev.cotenant.gateway.probe.ConcurrencyLimits} admits calls within a record's
 * {@code maxConcurrent}.
 */
@NullMarked
package dev.cotenant.gateway.probe;

import org.jspecify.annotations.NullMarked;
