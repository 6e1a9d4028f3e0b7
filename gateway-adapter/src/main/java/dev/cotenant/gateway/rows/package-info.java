/**
 * Rows: one per configured server, built in two phases so that no row does IO. {@link
 * dev.cotenant.gateway.rows.RowLoader} loads both records once and every current launch
 * identity; {@link dev.cotenant.gateway.rows.RowBuilder} builds every row purely from that
 * {@link dev.cotenant.gateway.rows.LoadedState}.
 */
package dev.cotenant.gateway.rows;
