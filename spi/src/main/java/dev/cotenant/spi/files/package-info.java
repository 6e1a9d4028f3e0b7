/**
 * Whole-file writes that survive a crash, and the lock several processes take around a file they
 * read, merge and write: {@link dev.cotenant.spi.files.AtomicFiles}. Every module that replaces a
 * file uses it (record stores, the daemon's state and token files, installed binaries, the MCP
 * configurations the runtime edits), and a host's own record store may too. Depends on the JDK
 * only.
 */
@NullMarked
package dev.cotenant.spi.files;

import org.jspecify.annotations.NullMarked;
