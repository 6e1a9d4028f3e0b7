/**
 * The sandbox a probe's servers run in ({@link dev.cotenant.gateway.sandbox.Sandbox}): bubblewrap
 * namespaces, a read-only root, private {@code HOME}, {@code TMPDIR} and {@code /tmp}, and private
 * copies of every path a server's configuration names, so that a probe changes nothing of the
 * operator's. The transport pool never uses it: a shared backend serves real sessions on the
 * operator's real data. What the pool's backends get is a pid namespace alone
 * ({@link dev.cotenant.gateway.sandbox.PidNamespace}), so that nothing they start outlives them.
 */
@NullMarked
package dev.cotenant.gateway.sandbox;

import org.jspecify.annotations.NullMarked;
