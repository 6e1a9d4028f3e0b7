/**
 * Complete, compiled examples of embedding Cotenant in a host, shown in
 * {@code docs/integration.md}: rows with Guice ({@link
 * dev.cotenant.examples.integration.GuiceRows}), passes with the builder ({@link
 * dev.cotenant.examples.integration.BuilderPasses}), seeding at start ({@link
 * dev.cotenant.examples.integration.SeedAtStart}) and the bulk stub action ({@link
 * dev.cotenant.examples.integration.BulkStubAction}).
 */
package dev.cotenant.examples.integration;
