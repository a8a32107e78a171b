package org.xtreemfs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class CopyProgressTest {
    private static final long MIB = 1024 * 1024;

    // Progress is reported once per 256 MiB boundary crossed, with the total when it is known.
    @Test
    void reportsOncePerBoundary() {
        StringWriter text = new StringWriter();
        CopyMain.Progress progress = new CopyMain.Progress(new PrintWriter(text), "read", 600 * MIB);
        for (long copied = MIB; copied <= 600 * MIB; copied += MIB) {
            progress.reached(copied);
        }
        assertThat(text.toString().lines()).containsExactly("xtfscp: 256 of 600 MiB read", "xtfscp: 512 of 600 MiB read");

        StringWriter unknownTotal = new StringWriter();
        CopyMain.Progress fromStandardInput = new CopyMain.Progress(new PrintWriter(unknownTotal), "written", -1);
        fromStandardInput.reached(300 * MIB);
        fromStandardInput.reached(301 * MIB);
        assertThat(unknownTotal.toString().lines()).containsExactly("xtfscp: 300 MiB written");
    }
}
