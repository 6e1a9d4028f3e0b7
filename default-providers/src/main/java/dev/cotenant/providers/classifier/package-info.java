/**
 * The default managed-server classifier, {@code empty}: it knows no server, because nothing
 * about which servers a machine runs ships with Cotenant. A host registers its own classifier to
 * name the servers it builds that are session-bound by construction.
 */
@NullMarked
package dev.cotenant.providers.classifier;

import org.jspecify.annotations.NullMarked;
