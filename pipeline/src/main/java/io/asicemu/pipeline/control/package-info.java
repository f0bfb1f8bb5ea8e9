/**
 * The pipeline's one control model, shared by the config side, the CLI and P4Runtime: {@link
 * io.asicemu.pipeline.control.PipelineControl} (install a {@link io.asicemu.pipeline.control.SwitchSetup}, ports,
 * counters, CPU port) and {@link io.asicemu.pipeline.control.TableBatch} (atomic table edits, validated by the parts
 * that own each kind of state). Names nothing of the config package: CONFIG_DB reaches it compiled, through this API
 * (config → control → table).
 */
package io.asicemu.pipeline.control;
