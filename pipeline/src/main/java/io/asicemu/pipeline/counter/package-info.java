/** Counters with SAI names: {@link io.asicemu.pipeline.counter.Counters} (written by the data thread),
 * {@link io.asicemu.pipeline.counter.CountersSnapshot} (read by everyone), and the reason enums. */
package io.asicemu.pipeline.counter;
