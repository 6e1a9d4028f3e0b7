/**
 * Examples for integrators: {@link dev.cotenant.examples.AssessExample}, a runnable table of
 * verdicts, and a custom provider in {@code dev.cotenant.examples.provider}.
 */
package dev.cotenant.examples;
