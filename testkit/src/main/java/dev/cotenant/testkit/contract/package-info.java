/**
 * Abstract JUnit 5 contract suites, one per SPI. A provider's own test class extends the suite of
 * its SPI and implements one factory method; every rule of the SPI then runs against it.
 *
 * <pre>{@code
 * class MyLedgerTest extends HazardLedgerContract {
 *   @Override
 *   protected HazardLedger open(Path directory) {
 *     return MyLedger.open(directory);
 *   }
 * }
 * }</pre>
 *
 * <p>Suites: {@link dev.cotenant.testkit.contract.HazardLedgerContract},
 * {@link dev.cotenant.testkit.contract.PreflightCacheContract},
 * {@link dev.cotenant.testkit.contract.ConcurrencyRecordsContract},
 * {@link dev.cotenant.testkit.contract.EvidenceSourceProviderContract},
 * {@link dev.cotenant.testkit.contract.ManagedServerClassifierContract},
 * {@link dev.cotenant.testkit.contract.SeedingPolicyContract},
 * {@link dev.cotenant.testkit.contract.ConcurrencyLimiterContract},
 * {@link dev.cotenant.testkit.contract.SessionTransportContract},
 * {@link dev.cotenant.testkit.contract.PreflightTransportContract}; the record-store suites share
 * {@link dev.cotenant.testkit.contract.RecordStoreContract}, the provider-based ones
 * {@link dev.cotenant.testkit.contract.NamedProviderContract}. Their test methods are
 * package-private, so a subclass cannot override a rule away; a subclass adds inputs through the
 * documented hooks instead.
 */
@NullMarked
package dev.cotenant.testkit.contract;

import org.jspecify.annotations.NullMarked;
