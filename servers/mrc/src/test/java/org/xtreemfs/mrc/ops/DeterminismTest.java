package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ALICE;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.RDWR;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.TRUNC;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.kv.KeyRange;
import org.xtreemfs.foundation.kv.KvEntry;
import org.xtreemfs.foundation.kv.KvIterator;
import org.xtreemfs.foundation.kv.KvStore;
import org.xtreemfs.interfaces.common.QosReservation;
import org.xtreemfs.interfaces.common.QosType;
import org.xtreemfs.interfaces.mrc.Stat;
import org.xtreemfs.interfaces.mrc.Volume;
import org.xtreemfs.mrc.metadata.FileModes;
import org.xtreemfs.mrc.metadata.Namespace;

/**
 * An apply step is a deterministic function of (context, store): the same operations with the same
 * contexts on two empty stores give the same results and byte-identical stores. This is what a simulator
 * or a replicated log relies on; an operation that read the clock, a random source or issued a signed
 * capability while applying would make the two runs differ.
 */
class DeterminismTest {
    /** Every operation with a static apply function, in an order that makes each one change something. */
    private static List<Object> run(NamespaceFixture fixture) throws Exception {
        Namespace namespace = fixture.namespace;
        List<Object> results = new ArrayList<>();
        results.add(fixture.createVolume("vol"));
        results.add(fixture.createVolume(fixture.as(ALICE), Volume.newBuilder().setName("seq")
                .setReservation(QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(1L << 30)
                        .setThroughputBytesPerSecond(50L << 20)).build(), "22222222-0000-0000-0000-000000000002"));
        results.add(VolumeSetReservationOp.changeReservation(namespace, fixture.ledger, fixture.as(ALICE), "seq",
                QosReservation.newBuilder().setType(QosType.SEQUENTIAL).setCapacityBytes(2L << 30)
                        .setThroughputBytesPerSecond(80L << 20).build()));
        results.add(MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/a", 0755));
        results.add(MkdirOp.mkdir(namespace, fixture.as(ROOT), "vol", "/b", 01777));
        OpenResult file = fixture.open(fixture.as(ALICE), "vol", "/b/f", CREAT | WRONLY, 0644);
        results.add(file);
        results.add(fixture.open(fixture.as(ALICE), "seq", "/s", CREAT | RDWR, 0600));
        results.add(UpdateFileSizeOp.updateFileSize(namespace, fixture.as(ALICE), file.volumeId(),
                file.record().inode(), 12_345, 0, false));
        results.add(FtruncateOp.beginTruncate(namespace, file.volumeId(), file.record().inode()));
        results.add(UpdateFileSizeOp.updateFileSize(namespace, fixture.as(ALICE), file.volumeId(),
                file.record().inode(), 100, 1, true));
        results.add(fixture.open(fixture.as(ALICE), "vol", "/b/f", RDWR | TRUNC, 0));
        results.add(SetattrOp.setattr(namespace, fixture.as(ALICE), "vol", "/b/f",
                Stat.newBuilder().setMode(0640).setAtimeNs(7).build(), 1 | 16));
        SetxattrOp.setxattr(namespace, fixture.as(ALICE), "vol", "/b/f", "user.k", new byte[] {1, 2, 3}, 0);
        results.add(ByteString.copyFrom(GetxattrOp.getxattr(namespace, fixture.as(ALICE), "vol", "/b/f", "user.k")));
        results.add(ListxattrOp.listxattr(namespace, fixture.as(ALICE), "vol", "/b/f"));
        results.add(LinkOp.link(namespace, fixture.as(ALICE), "vol", "/b/f", "/b/g"));
        results.add(SymlinkOp.symlink(namespace, fixture.as(ALICE), "vol", "f", "/b/l"));
        results.add(ReadlinkOp.readlink(namespace, fixture.as(ALICE), "vol", "/b/l"));
        results.add(MknodOp.mknod(namespace, fixture.as(ROOT), "vol", "/a/p", FileModes.S_IFIFO | 0600, 0));
        results.add(RenameOp.rename(namespace, fixture.as(ROOT), "vol", "/a", "/b/a", 0, ""));
        results.add(RenameOp.rename(namespace, fixture.as(ALICE), "vol", "/b/g", "/b/l",
                RenameOp.RENAME_EXCHANGE, ""));
        results.add(ReaddirOp.readdir(namespace, fixture.as(ALICE), "vol", "/b", 0, 0, false));
        results.add(GetattrOp.getattr(namespace, fixture.as(ALICE), "vol", "/b/g"));
        AccessOp.access(namespace, fixture.as(ALICE), "vol", "/b/g", 4);
        results.add(StatvfsOp.statvfs(namespace, fixture.as(ALICE), "vol"));
        RemovexattrOp.removexattr(namespace, fixture.as(ALICE), "vol", "/b/f", "user.k");
        results.add(UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", "/b/l"));
        results.add(UnlinkOp.unlink(namespace, fixture.as(ALICE), "vol", "/b/g"));
        results.add(UnlinkOp.unlink(namespace, fixture.as(ROOT), "vol", "/b/a/p"));
        RmdirOp.rmdir(namespace, fixture.as(ROOT), "vol", "/b/a");
        results.add(fixture.deleteVolume(fixture.as(ALICE), "seq"));
        return results;
    }

    private static List<KvEntry> contents(KvStore store) {
        List<KvEntry> entries = new ArrayList<>();
        try (KvIterator iterator = store.iterator(KeyRange.all())) {
            iterator.forEachRemaining(entries::add);
        }
        return entries;
    }

    @Test
    void theSameOperationsOnTheSameStoreGiveTheSameResultsAndBytes() throws Exception {
        // Two runs from empty stores with identical contexts: equal results, byte-identical stores.
        NamespaceFixture first = new NamespaceFixture();
        NamespaceFixture second = new NamespaceFixture();
        List<Object> firstResults = run(first);
        List<Object> secondResults = run(second);
        assertThat(firstResults).isEqualTo(secondResults);
        assertThat(contents(first.store)).isNotEmpty().isEqualTo(contents(second.store));
        assertThat(first.ledger.summary()).isEqualTo(second.ledger.summary());
    }
}
