/**
 * What {@code cotenant route} is made of: {@link dev.cotenant.cli.route.ConfigText} (a client's
 * MCP configuration as text, edited entry by entry so the rest of the file, comments included,
 * stays as it is), {@link dev.cotenant.cli.route.Router} (the pure plan: which entries are routed
 * or restored and why the others are not), {@link dev.cotenant.cli.route.Sidecar} (where the
 * original entries are kept), {@link dev.cotenant.cli.route.Launch} (how a routed entry starts
 * {@code cotenant connect}) and {@link dev.cotenant.cli.route.NativeShim} (the native shim routed
 * entries start where the jar holds one that runs here: installed from the jar, checked).
 */
package dev.cotenant.cli.route;
