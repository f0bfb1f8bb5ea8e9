/**
 * The narrow interface between the P4Runtime service and the pipeline: {@link io.asicemu.p4rt.backend.P4Backend}
 * takes validated, typed batches of {@link io.asicemu.p4rt.backend.P4Entity}; no protobuf crosses it.
 */
package io.asicemu.p4rt.backend;
