/**
 * The shared command line of the DIR, MRC and OSD mains: {@code --config}, {@code -D key=value},
 * {@code --help}, {@code --version}, {@code --print-settings}, then start, announce
 * {@code READY <service> <host:port> status <host:port>} ({@link org.xtreemfs.foundation.launcher.ReadyAnnouncement}, the
 * one definition of that line and its parser) and run until a shutdown signal. Invariant: bad usage or bad
 * settings exit with code 2 and a one-line message naming the problem, before anything starts.
 */
package org.xtreemfs.foundation.launcher;
