package org.xtreemfs.osd.stages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.xtreemfs.interfaces.common.FileCredentials;
import org.xtreemfs.osd.stages.FileAccessOrder.Admission;
import org.xtreemfs.osd.stages.StorageWork.AuthorizedRequest;
import org.xtreemfs.osd.stages.StorageWork.DeleteObjects;
import org.xtreemfs.osd.storage.StripeLayout;

class FileAccessOrderTest {
    private static final String FILE = "v:1";
    private static final FileCredentials CREDENTIALS = FileCredentials.getDefaultInstance();

    private static StorageWork read(String fileId, long objectNumber) {
        return authorized(new OsdRequest.ReadObject(null, CREDENTIALS, fileId, objectNumber, 0, 4096));
    }

    private static StorageWork write(String fileId, long objectNumber) {
        return authorized(new OsdRequest.WriteObject(null, CREDENTIALS, fileId, objectNumber, 0, false,
                Unpooled.wrappedBuffer(new byte[16])));
    }

    private static StorageWork write(String fileId, long objectNumber, int offset, int length) {
        return authorized(new OsdRequest.WriteObject(null, CREDENTIALS, fileId, objectNumber, offset, false,
                Unpooled.wrappedBuffer(new byte[length])));
    }

    private static StorageWork read(String fileId, long objectNumber, int offset, int length) {
        return authorized(new OsdRequest.ReadObject(null, CREDENTIALS, fileId, objectNumber, offset, length));
    }

    private static StorageWork truncate(String fileId) {
        return authorized(new OsdRequest.TruncateFile(null, CREDENTIALS, fileId, 0));
    }

    private static StorageWork authorized(OsdRequest request) {
        return new AuthorizedRequest(request, "v", 0, StripeLayout.single(128 * 1024));
    }

    @Test
    void readsOfOneFileRunTogetherEvenOfOneObject() {
        // Proves the point of the change: 32 random reads of one file are not serialised.
        FileAccessOrder order = new FileAccessOrder(100, true);
        for (int i = 0; i < 32; i++) {
            assertThat(order.admit(read(FILE, i % 3))).isEqualTo(Admission.RUN_NOW);
        }
        assertThat(order.size()).isEqualTo(32);
    }

    @Test
    void writesToDifferentObjectsRunTogetherAndOneObjectsAccessesWaitForAnEarlierWrite() {
        FileAccessOrder order = new FileAccessOrder(100, true);
        StorageWork first = write(FILE, 0);
        assertThat(order.admit(first)).isEqualTo(Admission.RUN_NOW);
        assertThat(order.admit(write(FILE, 1))).isEqualTo(Admission.RUN_NOW);
        StorageWork secondWriteOfZero = write(FILE, 0);
        StorageWork readOfZero = read(FILE, 0);
        assertThat(order.admit(secondWriteOfZero)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(readOfZero)).isEqualTo(Admission.WAITING);
        // The second write of object 0 is released first; the read waits for it too (arrival order).
        assertThat(order.finish(first)).containsExactly(secondWriteOfZero);
        assertThat(order.finish(secondWriteOfZero)).containsExactly(readOfZero);
    }

    @Test
    void disjointRangesOfOneObjectRunTogetherAndOverlappingOnesInArrivalOrder() {
        // 4 KiB random writes into one 1 MiB object: only the ones that share bytes wait for each other.
        FileAccessOrder order = new FileAccessOrder(100, true);
        StorageWork first = write(FILE, 0, 0, 4096);
        assertThat(order.admit(first)).isEqualTo(Admission.RUN_NOW);
        assertThat(order.admit(write(FILE, 0, 4096, 4096))).isEqualTo(Admission.RUN_NOW);   // adjacent, not shared
        assertThat(order.admit(read(FILE, 0, 65536, 4096))).isEqualTo(Admission.RUN_NOW);
        StorageWork overlapping = write(FILE, 0, 2048, 1024);
        StorageWork readOfFirst = read(FILE, 0, 4095, 1);
        assertThat(order.admit(overlapping)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(readOfFirst)).isEqualTo(Admission.WAITING);
        assertThat(order.finish(first)).containsExactly(overlapping, readOfFirst); // disjoint from each other
        // A replica fill's copy of the object covers all of it: it waits for every earlier access of the object.
        StorageWork copy = authorized(new OsdRequest.CopyObject(null, CREDENTIALS, FILE, 0, 1 << 20));
        assertThat(order.admit(copy)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(write(FILE, 1, 0, 4096))).isEqualTo(Admission.RUN_NOW);
        assertThat(order.admit(read(FILE, 0, (1 << 20) - 4096, 4096))).isEqualTo(Admission.WAITING);
    }

    @Test
    void aReadWaitsForNoWriteOfAnotherObjectButAWriteWaitsForAnEarlierReadOfItsObject() {
        FileAccessOrder order = new FileAccessOrder(100, true);
        StorageWork reading = read(FILE, 4);
        assertThat(order.admit(reading)).isEqualTo(Admission.RUN_NOW);
        StorageWork writing = write(FILE, 4);
        assertThat(order.admit(writing)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(read(FILE, 5))).isEqualTo(Admission.RUN_NOW);
        assertThat(order.finish(reading)).containsExactly(writing);
    }

    @Test
    void wholeFileWorkWaitsForEverythingBeforeItAndHoldsEverythingAfterIt() {
        FileAccessOrder order = new FileAccessOrder(100, true);
        StorageWork readA = read(FILE, 0);
        StorageWork writeB = write(FILE, 1);
        order.admit(readA);
        order.admit(writeB);
        StorageWork cut = truncate(FILE);
        assertThat(order.admit(cut)).isEqualTo(Admission.WAITING);
        StorageWork laterRead = read(FILE, 7);
        StorageWork laterWrite = write(FILE, 8);
        assertThat(order.admit(laterRead)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(laterWrite)).isEqualTo(Admission.WAITING);
        // Other files are not held.
        assertThat(order.admit(read("v:2", 7))).isEqualTo(Admission.RUN_NOW);
        assertThat(order.finish(readA)).isEmpty();
        assertThat(order.finish(writeB)).containsExactly(cut);
        assertThat(order.finish(cut)).containsExactly(laterRead, laterWrite);
        StorageWork deletion = new DeleteObjects(FILE);
        assertThat(order.admit(deletion)).isEqualTo(Admission.WAITING);
        assertThat(order.finish(laterRead)).isEmpty();
        assertThat(order.finish(laterWrite)).containsExactly(deletion);
    }

    @Test
    void boundedAndStrictAboutWhatFinishes() {
        FileAccessOrder order = new FileAccessOrder(2, true);
        StorageWork first = write(FILE, 0);
        StorageWork waiting = write(FILE, 0);
        order.admit(first);
        order.admit(waiting);
        assertThat(order.admit(read("v:2", 0))).isEqualTo(Admission.FULL);
        assertThatThrownBy(() -> order.finish(waiting)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("without having been released");
        assertThatThrownBy(() -> order.finish(read(FILE, 0))).isInstanceOf(IllegalStateException.class);
        assertThat(order.finish(first)).containsExactly(waiting);
        assertThat(order.finish(waiting)).isEmpty();
        assertThat(order.size()).isZero();
        assertThatThrownBy(() -> new FileAccessOrder(0, true)).hasMessageContaining("capacity >= 1, got 0");
    }

    @Test
    void onADeviceWithOneHeadAFileRunsOneWorkAtATimeInArrivalOrder() {
        FileAccessOrder order = new FileAccessOrder(100, false);
        StorageWork first = read(FILE, 0);
        StorageWork second = read(FILE, 0);
        StorageWork third = write(FILE, 1);
        assertThat(order.admit(first)).isEqualTo(Admission.RUN_NOW);
        assertThat(order.admit(second)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(third)).isEqualTo(Admission.WAITING);
        assertThat(order.admit(read("v:2", 0))).isEqualTo(Admission.RUN_NOW);
        assertThat(order.finish(first)).containsExactly(second);
        assertThat(order.finish(second)).containsExactly(third);
    }
}
