/**
 * A small HTTP status server on Netty's HTTP codec, with event loops and a handler pool of its own: a human
 * page at {@code /}, the same facts as JSON at {@code /status.json}, metrics at {@code /metrics}. Invariants: a
 * failing page supplier yields an HTTP 500 for that request only; the server keeps serving; the connections,
 * threads and time a client can hold on it are bounded ({@code StatusPageServer.Limits}).
 */
package org.xtreemfs.foundation.status;
