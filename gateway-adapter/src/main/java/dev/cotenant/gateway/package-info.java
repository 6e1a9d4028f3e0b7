/**
 * The runtime a host embeds: {@link dev.cotenant.gateway.Cotenant} (built with
 * {@link dev.cotenant.gateway.Cotenant#builder()}) and the Guice
 * {@link dev.cotenant.gateway.CotenantModule}. Providers are discovered in
 * {@link dev.cotenant.gateway.providers}.
 */
@NullMarked
package dev.cotenant.gateway;

import org.jspecify.annotations.NullMarked;
