/** Emulated time: {@link io.asicemu.pipeline.time.Clock}, with {@link io.asicemu.pipeline.time.ManualClock} for tests
 * and replay and {@link io.asicemu.pipeline.time.MonotonicClock} (optional time dilation) for the live switch. */
package io.asicemu.pipeline.time;
