/** Byte/cell accounting of pools, ingress PGs and egress queues, and the per-queue packet rings. */
package io.asicemu.tm.buffer;
