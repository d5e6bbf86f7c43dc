package io.ioscale.testing;

import java.lang.management.ManagementFactory;

/** Bytes the current thread has allocated on the heap, so a test can bound what one call allocates. */
public final class Allocations {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {}

    /** Running total of this thread's heap allocations; the difference of two readings is what ran between. */
    public static long ofThisThread() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }
}
