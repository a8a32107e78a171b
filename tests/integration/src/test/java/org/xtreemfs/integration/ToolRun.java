package org.xtreemfs.integration;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.xtreemfs.client.tools.ToolRunner;

/** One in-process run of a tool (exit code and what it printed), as the tool tests check it. */
record ToolRun(int exitCode, String out, String err) {
    static ToolRun of(Object tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = ToolRunner.execute(tool, new PrintWriter(out), new PrintWriter(err), args);
        return new ToolRun(exitCode, out.toString(), err.toString());
    }
}
