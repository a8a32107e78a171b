/**
 * Files and folders a server writes that only its own user may read ({@code PrivateFiles}). Invariant: what a
 * server creates under its data, database and state folders is created owner-only (files 0600, folders 0700),
 * never created wider and narrowed afterwards, so no other local user can read it at any moment.
 */
package org.xtreemfs.foundation.files;
