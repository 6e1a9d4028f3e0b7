/**
 * The {@code redis} concurrency limiter: {@code maxConcurrent} enforced across every gateway of a
 * fleet, with leases that return a crashed holder's slot, and admission refused while Redis
 * cannot be asked.
 */
package dev.cotenant.fleet.redis;
