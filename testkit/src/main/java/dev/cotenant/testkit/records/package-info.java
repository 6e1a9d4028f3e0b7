/**
 * Record stores in memory: {@link dev.cotenant.testkit.records.InMemoryRecordStores} and the
 * provider {@code memory} ({@link dev.cotenant.testkit.records.InMemoryRecordStoreProvider}).
 */
@NullMarked
package dev.cotenant.testkit.records;

import org.jspecify.annotations.NullMarked;
