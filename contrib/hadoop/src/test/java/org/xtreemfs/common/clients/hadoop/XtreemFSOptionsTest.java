package org.xtreemfs.common.clients.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.xtreemfs.client.ClientOptions;

class XtreemFSOptionsTest {
    private static Configuration empty() {
        return new Configuration(false);
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        XtreemFSOptions options = XtreemFSOptions.from(empty());
        assertThat(options.defaultVolumeName()).isEmpty();
        assertThat(options.credentials()).isEqualTo(ClientOptions.currentUser());
        assertThat(options.readBuffered()).isTrue();
        assertThat(options.writeBuffered()).isTrue();
        assertThat(options.readBufferBytes()).isEqualTo(1 << 20);
        assertThat(options.writeBufferBytes()).isEqualTo(1 << 20);
        assertThat(options.renameOverwrites()).isFalse();
        assertThat(options.blockSizeBytes()).isEqualTo(128L << 20);
    }

    @Test
    void valuesAreReadWithHadoopsSizeSuffixes() {
        Configuration conf = empty();
        conf.set(XtreemFSOptions.DEFAULT_VOLUME_NAME, "analytics");
        conf.set(XtreemFSOptions.READ_BUFFER_SIZE, "4m");
        conf.set(XtreemFSOptions.WRITE_BUFFER_SIZE, "64k");
        conf.set(XtreemFSOptions.BLOCK_SIZE, "256m");
        conf.setBoolean(XtreemFSOptions.READ_BUFFERED, false);
        conf.setBoolean(XtreemFSOptions.RENAME_OVERWRITE, true);
        conf.set(XtreemFSOptions.USER_ID, "1234");
        conf.set(XtreemFSOptions.GROUP_ID, "567");
        XtreemFSOptions options = XtreemFSOptions.from(conf);
        assertThat(options.defaultVolumeName()).isEqualTo("analytics");
        assertThat(options.readBufferBytes()).isEqualTo(4 << 20);
        assertThat(options.writeBufferBytes()).isEqualTo(64 << 10);
        assertThat(options.blockSizeBytes()).isEqualTo(256L << 20);
        assertThat(options.readBuffered()).isFalse();
        assertThat(options.renameOverwrites()).isTrue();
        assertThat(options.credentials().getUid()).isEqualTo(1234);
        assertThat(options.credentials().getGid()).isEqualTo(567);
    }

    @Test
    void badValuesAreRefusedNamingKeyAndValue() {
        Configuration badId = empty();
        badId.set(XtreemFSOptions.USER_ID, "alice");
        assertThatThrownBy(() -> XtreemFSOptions.from(badId)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(XtreemFSOptions.USER_ID).hasMessageContaining("'alice'");
        Configuration hugeBuffer = empty();
        hugeBuffer.set(XtreemFSOptions.READ_BUFFER_SIZE, "1g");
        assertThatThrownBy(() -> XtreemFSOptions.from(hugeBuffer)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(XtreemFSOptions.READ_BUFFER_SIZE).hasMessageContaining("1g");
        Configuration zeroBlock = empty();
        zeroBlock.set(XtreemFSOptions.BLOCK_SIZE, "0");
        assertThatThrownBy(() -> XtreemFSOptions.from(zeroBlock)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(XtreemFSOptions.BLOCK_SIZE).hasMessageContaining("got 0");
    }
}
