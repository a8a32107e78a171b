/**
 * A small HTTP status server on the JDK's built-in server: a human page at {@code /} and the
 * same facts as JSON at {@code /status.json}. Invariant: a failing page supplier yields an HTTP 500
 * for that request only; the server keeps serving.
 */
package org.xtreemfs.foundation.status;
