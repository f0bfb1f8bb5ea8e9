/** The pipeline's data-path tables in primitive arrays: LPM, FDB, neighbors, next hops, groups, VLANs, ACL and QoS
 * maps, gathered in {@link io.asicemu.pipeline.table.ForwardingTables}. All owned by the data-plane thread. */
package io.asicemu.pipeline.table;
