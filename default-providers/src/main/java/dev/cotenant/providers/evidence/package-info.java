/**
 * The default evidence sources. Each reads only a server description and, when one was
 * observed, a handshake snapshot; each is pure, thread-safe and named by the reason code it
 * contributes. They are registered in
 * {@code META-INF/services/dev.cotenant.spi.EvidenceSourceProvider}.
 *
 * <p>Configuration keys read here: {@value dev.cotenant.spi.CoreSettings#CALLER_IDENTITY_KEYS},
 * {@value dev.cotenant.spi.CoreSettings#SECRET_PATTERNS} and {@value dev.cotenant.spi.CoreSettings#POOL_IDENTITY_ENV}.
 */
@NullMarked
package dev.cotenant.providers.evidence;

import org.jspecify.annotations.NullMarked;
