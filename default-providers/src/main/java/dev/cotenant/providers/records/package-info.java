/**
 * The {@code file} record store (docs/architecture.md, docs/records.md): the records directory resolution, launch
 * identities with binary fingerprints, the observed-hazard ledger and the pre-flight cache as
 * JSON files written atomically under a cross-process lock.
 */
package dev.cotenant.providers.records;
