package org.xtreemfs.osd.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenObjectFilesTest {
    @TempDir
    Path root;

    private final List<FileChannel> openedChannels = new ArrayList<>();

    private OpenObjectFiles.Opener opener(String name) {
        return () -> {
            FileChannel channel = FileChannel.open(root.resolve(name), StandardOpenOption.CREATE,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
            openedChannels.add(channel);
            return channel;
        };
    }

    @Test
    void aCachedObjectIsOpenedOnceAndTheLeastRecentlyUsedIsClosedBeyondTheCapacity() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(2);
        for (int round = 0; round < 3; round++) {
            files.release(files.acquire("f", 0, opener("a")));
        }
        assertThat(files.openedCount()).isEqualTo(1);
        assertThat(files.hitCount()).isEqualTo(2);
        files.release(files.acquire("f", 1, opener("b")));
        files.release(files.acquire("f", 0, opener("a"))); // now 1 is the least recently used
        files.release(files.acquire("g", 0, opener("c")));
        assertThat(files.size()).isEqualTo(2);
        assertThat(openedChannels).hasSize(3);
        assertThat(openedChannels.get(0).isOpen()).as("object 0 of f, used recently").isTrue();
        assertThat(openedChannels.get(1).isOpen()).as("object 1 of f, evicted").isFalse();
        assertThat(openedChannels.get(2).isOpen()).isTrue();
        files.close();
        assertThat(openedChannels).noneMatch(FileChannel::isOpen);
    }

    @Test
    void acquiringACachedChannelOpensNothingAndKeepsItOpenUntilItsRelease() throws IOException {
        // What an object's background force relies on (ObjectStore.forceObject): it gets the channel the write left in
        // the cache (the ordinary one first, else the O_DIRECT one), never an opened one, and the channel stays open
        // through the force even when the file is forgotten (deleted or truncated) meanwhile.
        OpenObjectFiles files = new OpenObjectFiles(4);
        assertThat(files.acquireCached("f", 0)).isNull();
        files.release(files.acquireDirect("f", 0, opener("direct")));
        OpenObjectFiles.Handle direct = files.acquireCached("f", 0);
        assertThat(direct.channel()).isSameAs(openedChannels.get(0));
        files.release(direct);
        files.release(files.acquire("f", 0, opener("ordinary")));
        OpenObjectFiles.Handle ordinary = files.acquireCached("f", 0);
        assertThat(ordinary.channel()).isSameAs(openedChannels.get(1));
        assertThat(files.openedCount()).isEqualTo(2);
        files.forget("f");
        assertThat(ordinary.channel().isOpen()).isTrue();
        ordinary.channel().force(true);
        files.release(ordinary);
        assertThat(openedChannels).noneMatch(FileChannel::isOpen);
        assertThat(files.acquireCached("f", 0)).isNull();
        files.close();
    }

    @Test
    void aFileIsHeldWhileAnyOfItsChannelsIsCachedAndNotAfterItIsForgottenOrEvicted() throws IOException {
        // What ObjectStore.openForWrite relies on to skip the stat of a file's folder per new object: the answer is
        // true only while a channel of the file is in the cache, whichever way it leaves (forget, eviction, close).
        OpenObjectFiles files = new OpenObjectFiles(2);
        assertThat(files.holdsFile("f")).isFalse();
        files.release(files.acquireDirect("f", 0, opener("a")));
        files.release(files.acquire("f", 1, opener("b")));
        assertThat(files.holdsFile("f")).isTrue();
        assertThat(files.holdsFile("g")).isFalse();
        files.forget("f");
        assertThat(files.holdsFile("f")).isFalse();
        files.release(files.acquire("f", 0, opener("c")));
        files.release(files.acquire("g", 0, opener("d")));
        files.release(files.acquire("g", 1, opener("e"))); // evicts f's only channel
        assertThat(files.holdsFile("f")).isFalse();
        assertThat(files.holdsFile("g")).isTrue();
        files.close();
        assertThat(files.holdsFile("g")).isFalse();
    }

    @Test
    void aChannelInUseIsNeverClosedUnderItsUserButAtItsLastRelease() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(1);
        OpenObjectFiles.Handle held = files.acquire("f", 0, opener("a"));
        OpenObjectFiles.Handle second = files.acquire("f", 0, opener("a"));
        assertThat(second).isSameAs(held);
        files.release(files.acquire("f", 1, opener("b"))); // evicts object 0 while two users hold it
        assertThat(held.channel().isOpen()).isTrue();
        held.channel().write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
        files.release(second);
        assertThat(held.channel().isOpen()).isTrue();
        files.release(held);
        assertThat(held.channel().isOpen()).isFalse();
        assertThatThrownBy(() -> files.release(held)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released more often than acquired");
        files.close();
    }

    @Test
    void forgettingAFileDropsOnlyItsChannelsSoTheNextAccessOpensTheFileAnew() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(8);
        files.release(files.acquire("f", 0, opener("a")));
        OpenObjectFiles.Handle inUse = files.acquire("f", 1, opener("b"));
        files.release(files.acquire("g", 0, opener("c")));
        Files.delete(root.resolve("a"));
        files.forget("f");
        assertThat(openedChannels.get(0).isOpen()).isFalse();
        assertThat(inUse.channel().isOpen()).as("closed at its release, not under its user").isTrue();
        assertThat(openedChannels.get(2).isOpen()).isTrue();
        OpenObjectFiles.Handle reopened = files.acquire("f", 0, opener("a"));
        assertThat(reopened.channel()).isNotSameAs(openedChannels.get(0));
        assertThat(root.resolve("a")).exists(); // the opener ran again (it creates the file)
        files.release(reopened);
        files.release(inUse);
        assertThat(inUse.channel().isOpen()).isFalse();
        files.close();
    }

    @Test
    void forgettingAfterEvictionsDropsExactlyTheFilesRemainingChannels() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(2);
        files.release(files.acquire("f", 0, opener("a")));
        files.release(files.acquire("f", 1, opener("b")));
        files.release(files.acquire("g", 0, opener("c"))); // evicts object 0 of f
        assertThat(openedChannels.get(0).isOpen()).isFalse();
        files.forget("f");
        assertThat(openedChannels.get(1).isOpen()).as("object 1 of f, still cached until forgotten").isFalse();
        assertThat(openedChannels.get(2).isOpen()).isTrue();
        assertThat(files.size()).isEqualTo(1);
        files.forget("f"); // nothing of f left: a no-op
        files.forget("never-seen");
        assertThat(files.size()).isEqualTo(1);
        files.release(files.acquire("f", 1, opener("b")));
        assertThat(files.openedCount()).as("forgotten, so opened anew").isEqualTo(4);
        files.forget("g");
        assertThat(openedChannels.get(2).isOpen()).isFalse();
        assertThat(files.size()).isEqualTo(1);
        files.close();
        assertThat(openedChannels).noneMatch(FileChannel::isOpen);
    }

    @Test
    void anObjectsDirectChannelIsASeparateEntryForgottenWithItsFile() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(8);
        OpenObjectFiles.Handle ordinary = files.acquire("f", 0, opener("a"));
        OpenObjectFiles.Handle direct = files.acquireDirect("f", 0, opener("a"));
        assertThat(direct).as("never the ordinary channel").isNotSameAs(ordinary);
        files.release(ordinary);
        files.release(direct);
        assertThat(files.acquireDirect("f", 0, opener("a"))).isSameAs(direct);
        files.release(direct);
        assertThat(files.acquire("f", 0, opener("a"))).isSameAs(ordinary);
        files.release(ordinary);
        assertThat(files.openedCount()).isEqualTo(2);
        assertThat(files.size()).isEqualTo(2);
        files.release(files.acquireDirect("g", 3, opener("b")));
        assertThat(files.contains("g", 3)).as("a direct channel alone shows the object exists").isTrue();
        files.forget("f");
        assertThat(ordinary.channel().isOpen()).isFalse();
        assertThat(direct.channel().isOpen()).isFalse();
        assertThat(files.contains("f", 0)).isFalse();
        assertThat(files.size()).isEqualTo(1);
        files.close();
        assertThat(openedChannels).noneMatch(FileChannel::isOpen);
    }

    @Test
    void withCapacityZeroEveryReleaseCloses() throws IOException {
        OpenObjectFiles files = new OpenObjectFiles(0);
        OpenObjectFiles.Handle handle = files.acquire("f", 0, opener("a"));
        files.release(handle);
        assertThat(handle.channel().isOpen()).isFalse();
        assertThat(files.size()).isZero();
    }

    @Test
    void aFailedOpenCachesNothing() {
        OpenObjectFiles files = new OpenObjectFiles(4);
        assertThatThrownBy(() -> files.acquire("f", 0, () -> FileChannel.open(root.resolve("missing"),
                StandardOpenOption.READ))).isInstanceOf(java.nio.file.NoSuchFileException.class);
        assertThat(files.size()).isZero();
    }
}
