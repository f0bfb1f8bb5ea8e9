package io.asicemu.p4rt.adapter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.asicemu.p4rt.backend.CpuPortListener;
import io.asicemu.p4rt.backend.P4Backend;
import io.asicemu.p4rt.backend.P4Entity;
import io.asicemu.p4rt.backend.ReadFilter;
import io.asicemu.p4rt.backend.UpdateOutcome;
import io.asicemu.p4rt.backend.WriteOp;
import io.asicemu.pipeline.control.PipelineControl;
import io.asicemu.pipeline.cpu.CpuPort;
import io.asicemu.pipeline.cpu.PacketInHandler;

/**
 * Connects P4Runtime packet I/O to the real pipeline's CPU port: PacketOut goes to {@link CpuPort#packetOut} (or
 * through ingress), punted packets polled from the CPU port become PacketIn with the pipeline's punt reason. Table
 * state is delegated to {@code tables} (in production a {@link PipelineTableBackend}, which programs the pipeline);
 * this class keeps no state of its own.
 * <p>
 * Threading: {@link #pollPacketIns} must run on one thread (the CPU port's single consumer); everything else may run
 * on gRPC threads.
 */
public final class PipelineCpuPortBackend implements P4Backend, PacketInHandler
{
    private final P4Backend tables;
    private final PipelineControl control;
    private volatile CpuPortListener listener;

    public PipelineCpuPortBackend(final P4Backend tables, final PipelineControl control)
    {
        this.tables = tables;
        this.control = control;
    }

    @Override
    public List<UpdateOutcome> write(final List<WriteOp> ops, final boolean allOrNothing)
    {
        return tables.write(ops, allOrNothing);
    }

    @Override
    public List<P4Entity> read(final ReadFilter filter)
    {
        return tables.read(filter);
    }

    @Override
    public void reset()
    {
        tables.reset();
    }

    @Override
    public void packetOut(final byte[] payload, final int egressPort, final boolean submitToIngress)
    {
        if (submitToIngress)
        {
            control.cpuPort().packetOutThroughIngress(payload, egressPort);
        }
        else
        {
            control.cpuPort().packetOut(payload, egressPort);
        }
    }

    @Override
    public void cpuPortListener(final CpuPortListener listener)
    {
        this.listener = listener;
        tables.cpuPortListener(listener);
    }

    @Override
    public boolean portExists(final int port)
    {
        return port >= 0 && port < control.portNames().size();
    }

    /**
     * Hands up to {@code limit} punted packets to the P4Runtime listener. Call from one thread only.
     *
     * @return how many packets were handed over.
     */
    public int pollPacketIns(final int limit)
    {
        return control.cpuPort().poll(this, limit);
    }

    /**
     * Starts the CPU port's consumer: a daemon thread that hands punted packets over and blocks while there are none
     * (the data plane unparks it on the next punt), so an idle switch costs nothing here.
     *
     * @return closing it stops the thread (and waits for it).
     */
    public AutoCloseable startPacketInPoller()
    {
        final CpuPort cpu = control.cpuPort();
        final Thread thread = Thread.ofPlatform().daemon().name("p4rt-packet-in").unstarted(() ->
        {
            while (!Thread.currentThread().isInterrupted())
            {
                if (pollPacketIns(64) == 0 && cpu.prepareToWait())
                {
                    LockSupport.park(this);
                    cpu.doneWaiting();
                }
            }
        });
        cpu.puntWakeUp(() -> LockSupport.unpark(thread));
        thread.start();
        return () ->
        {
            cpu.puntWakeUp(null);
            thread.interrupt();
            thread.join(5_000);
        };
    }

    @Override
    public void onPacket(final MemorySegment segment, final long offset, final int length, final int ingressPort,
        final int reason, final long timestampNs)
    {
        final CpuPortListener l = listener;
        if (l != null)
        {
            final byte[] frame = new byte[length];
            MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, frame, 0, length);
            l.onPacketIn(frame, ingressPort, 0, reason);
        }
    }
}
