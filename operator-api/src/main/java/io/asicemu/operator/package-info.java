/**
 * The operator's side of a running switch: its counters, state and configuration as SONiC's COUNTERS_DB, STATE_DB and
 * CONFIG_DB over the Redis protocol ({@link io.asicemu.operator.OperatorRedisServer}; CONFIG_DB writes and keyspace
 * notifications through a {@link io.asicemu.operator.ConfigAccess} over the one control model), SONiC's {@code show}
 * views ({@link io.asicemu.operator.ShowViews}) and Prometheus metrics ({@link io.asicemu.operator.PrometheusMetrics}),
 * the reads built from {@link io.asicemu.operator.SwitchSnapshot}s a {@link io.asicemu.operator.SnapshotSource} takes
 * off the data path.
 */
package io.asicemu.operator;
