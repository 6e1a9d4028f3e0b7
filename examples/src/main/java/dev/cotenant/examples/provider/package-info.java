/** A custom provider example: a host's own managed-server classifier. */
package dev.cotenant.examples.provider;
