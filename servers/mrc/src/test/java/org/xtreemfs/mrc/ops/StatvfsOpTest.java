package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** StatvfsOp.statvfs: space from the prepared OSD list, capped by the reservation. */
class StatvfsOpTest extends OnOneVolume {
    @Test
    void statvfsSumsOsdSpace() throws Exception {
        // statvfs reports the OSDs' space in 4 KiB blocks, the volume id and the name limit.
        var statvfs = StatvfsOp.statvfs(namespace, root(), "vol");
        assertThat(statvfs.getBlockSize()).isEqualTo(4096);
        assertThat(statvfs.getTotalBlocks()).isEqualTo(3 * (200L << 30) / 4096);
        assertThat(statvfs.getFreeBlocks()).isEqualTo(3 * (100L << 30) / 4096);
        assertThat(statvfs.getNameMax()).isEqualTo(255);
        assertThat(statvfs.getVolumeId()).isEqualTo(namespace.volume("vol").getId());
        var fallback = StatvfsOp.statvfs(namespace, OperationContext.of(ROOT, 1), "vol");
        assertThat(fallback.getTotalBlocks()).isPositive();
    }
}
