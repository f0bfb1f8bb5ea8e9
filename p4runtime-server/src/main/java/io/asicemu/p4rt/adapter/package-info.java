/**
 * Adapters from {@link io.asicemu.p4rt.backend.P4Backend} onto the pipeline's control API:
 * {@link io.asicemu.p4rt.adapter.PipelineTableBackend} (P4Runtime batches compiled into atomic pipeline table batches)
 * and {@link io.asicemu.p4rt.adapter.PipelineCpuPortBackend} (packet I/O through the pipeline's CPU port).
 */
package io.asicemu.p4rt.adapter;
