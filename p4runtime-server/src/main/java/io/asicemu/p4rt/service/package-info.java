/**
 * The P4Runtime gRPC service: {@link io.asicemu.p4rt.service.P4RuntimeServer} listens, {@link
 * io.asicemu.p4rt.service.P4RuntimeService} serves {@link io.asicemu.p4rt.service.Device}s (one per emulated switch).
 */
package io.asicemu.p4rt.service;
