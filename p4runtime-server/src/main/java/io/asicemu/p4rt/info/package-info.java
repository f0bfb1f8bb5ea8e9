/**
 * The typed P4Info of asic-emu's fixed pipeline: {@link io.asicemu.p4rt.info.FixedPipelineInfo} loads the text
 * P4Info from the jar and {@link io.asicemu.p4rt.info.P4InfoModel} gives the limits the server enforces.
 */
package io.asicemu.p4rt.info;
