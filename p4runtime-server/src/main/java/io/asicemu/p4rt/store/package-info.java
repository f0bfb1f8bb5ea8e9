/**
 * {@link io.asicemu.p4rt.store.InProcessTableStore}: a complete in-process {@link io.asicemu.p4rt.backend.P4Backend}
 * used until the pipeline's control API is available; it is not the pipeline.
 */
package io.asicemu.p4rt.store;
