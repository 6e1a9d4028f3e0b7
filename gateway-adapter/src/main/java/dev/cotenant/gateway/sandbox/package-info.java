/**
 * The sandbox a probe's servers run in ({@link dev.cotenant.gateway.sandbox.Sandbox}): bubblewrap
 * namespaces, a read-only root, private {@code HOME}, {@code TMPDIR} and {@code /tmp}, and private
 * copies of every path a server's configuration names, so that a probe changes nothing of the
 * operator's. The transport pool never uses it: a shared backend serves real sessions on the
 * operator's real data.
 */
@NullMarked
package dev.cotenant.gateway.sandbox;

import org.jspecify.annotations.NullMarked;
