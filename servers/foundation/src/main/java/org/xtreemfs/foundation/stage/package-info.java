/**
 * SEDA stages: a bounded queue drained by worker threads, and an ordered variant that runs the
 * messages of one key in submission order. Invariant: queues never grow past their capacity; a full
 * queue rejects with {@link org.xtreemfs.foundation.stage.OverloadedException}, and every accepted
 * message is either handled or handed back as discarded at shutdown.
 */
package org.xtreemfs.foundation.stage;
