/**
 * Process hygiene for tests: {@link dev.cotenant.testkit.process.NoLeftoverProcesses} (and its
 * meta-annotation {@link dev.cotenant.testkit.process.ChecksProcessLeaks}) fails a test that
 * leaves a process running; {@link dev.cotenant.testkit.process.Processes} and
 * {@link dev.cotenant.testkit.process.ProcessSnapshot} find, wait for and kill the processes a
 * test started; {@link dev.cotenant.testkit.process.CountingSessionTransport} counts, as it
 * happens, how many server processes a session transport's sessions ran at once.
 */
@NullMarked
package dev.cotenant.testkit.process;

import org.jspecify.annotations.NullMarked;
