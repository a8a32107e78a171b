package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectInvalidArgs;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xtreemfs.foundation.rpc.Errno;
import org.xtreemfs.interfaces.mrc.DirectoryEntry;
import org.xtreemfs.interfaces.mrc.ReaddirResponse;
import org.xtreemfs.mrc.metadata.Namespace;
import org.xtreemfs.mrc.metadata.OperationContext;

/** ReaddirOp.readdir: name order, dot entries and paging. */
class ReaddirOpTest extends OnOneVolume {
    @Test
    void readdirPagesInNameOrderWithDotEntries() throws Exception {
        // Entries come as ".", "..", then by name; paging with offset/limit yields each exactly once.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        for (String name : List.of("c", "a", "e", "b", "d")) {
            create("/d/" + name);
        }
        ReaddirResponse all = ReaddirOp.readdir(namespace, root(), "vol", "/d", 0, 0, false);
        assertThat(all.getEntriesList()).extracting(DirectoryEntry::getName)
                .containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(all.getEndOfDirectory()).isTrue();
        assertThat(all.getEntries(1).getStat().getInode()).isEqualTo(Namespace.ROOT_INODE);
        List<String> paged = new ArrayList<>();
        long offset = 0;
        boolean end = false;
        int pages = 0;
        while (!end) {
            ReaddirResponse page = ReaddirOp.readdir(namespace, root(), "vol", "/d", offset, 3, true);
            page.getEntriesList().forEach(entry -> paged.add(entry.getName()));
            assertThat(page.getEntriesList()).allMatch(entry -> !entry.hasStat());
            offset = page.getEntries(page.getEntriesCount() - 1).getNextOffset();
            end = page.getEndOfDirectory();
            pages++;
        }
        assertThat(paged).containsExactly(".", "..", "a", "b", "c", "d", "e");
        assertThat(pages).isEqualTo(3);
        expectErrno(Errno.ENOTDIR, () -> ReaddirOp.readdir(namespace, root(), "vol", "/d/a", 0, 0, false));
    }

    @Test
    void continuationAfterANameListsEveryEntryPresentThroughoutExactlyOnce() throws Exception {
        // Pages continued by name (after_name), with creates and unlinks between the pages: every name present from
        // the first page to the last comes exactly once and in order, and the offsets go on from the caller's.
        MkdirOp.mkdir(namespace, root(), "vol", "/d", 0755);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String name = String.format("f%03d", i);
            create("/d/" + name);
            if (i % 2 == 0) {
                kept.add(name);
            }
        }
        ReaddirResponse first = ReaddirOp.readdir(namespace, root(), "vol", "/d", 0, 7, true);
        List<String> listed = new ArrayList<>();
        first.getEntriesList().forEach(entry -> listed.add(entry.getName()));
        long offset = first.getEntries(first.getEntriesCount() - 1).getNextOffset();
        String last = listed.get(listed.size() - 1);
        boolean end = first.getEndOfDirectory();
        int round = 0;
        while (!end) {
            // Between pages: the odd names go (the last one listed too), and names sorting before and after appear.
            for (int i = 1; i < 40; i += 2) {
                String name = String.format("/d/f%03d", i);
                if (round == i / 8) {
                    UnlinkOp.unlink(namespace, root(), "vol", name);
                }
            }
            create("/d/a" + round);
            create("/d/g" + round);
            ReaddirResponse page = ReaddirOp.readdir(namespace, root(), "vol", "/d", offset, last, 7, false);
            assertThat(page.getEntriesList()).allMatch(DirectoryEntry::hasStat);
            for (DirectoryEntry entry : page.getEntriesList()) {
                assertThat(entry.getNextOffset()).isEqualTo(offset + 1);
                offset = entry.getNextOffset();
                listed.add(entry.getName());
            }
            if (page.getEntriesCount() > 0) {
                last = listed.get(listed.size() - 1);
            }
            end = page.getEndOfDirectory();
            round++;
        }
        assertThat(listed).doesNotHaveDuplicates();
        assertThat(listed).containsSubsequence(kept);
        assertThat(listed.subList(2, listed.size())).isSorted();
        assertThat(listed).noneMatch(name -> name.startsWith("a"));
        expectInvalidArgs(() -> ReaddirOp.readdir(namespace, root(), "vol", "/d", 2, "f000", 7, false));
    }
}
