/** The port SPI: {@link io.asicemu.pipeline.port.Port} lends received frames zero-copy into an
 * {@link io.asicemu.pipeline.port.RxBatch} and copies transmitted ones; {@link io.asicemu.pipeline.port.InMemoryPort}
 * for tests, {@link io.asicemu.pipeline.port.PcapFilePort} for offline replay. */
package io.asicemu.pipeline.port;
