package org.xtreemfs.mrc.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xtreemfs.mrc.ops.NamespaceFixture.CREAT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.ROOT;
import static org.xtreemfs.mrc.ops.NamespaceFixture.WRONLY;
import static org.xtreemfs.mrc.ops.NamespaceFixture.expectErrno;

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
}
