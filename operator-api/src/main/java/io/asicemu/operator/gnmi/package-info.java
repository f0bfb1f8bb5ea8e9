/**
 * gNMI streaming telemetry of a running switch, as SONiC's telemetry server serves it: {@link
 * io.asicemu.operator.gnmi.GnmiServer#start} listens, {@link io.asicemu.operator.gnmi.GnmiService} answers from the
 * same {@link io.asicemu.operator.SnapshotCache} as the Redis front and Prometheus.
 */
package io.asicemu.operator.gnmi;
