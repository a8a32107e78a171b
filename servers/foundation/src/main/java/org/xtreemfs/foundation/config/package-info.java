/**
 * Typed, bounded, documented settings: each {@link org.xtreemfs.foundation.config.Setting} is
 * declared once (key, type, default, bounds, one-line description) and a
 * {@link org.xtreemfs.foundation.config.SettingsSchema} validates start-up properties against them.
 * Invariant: a {@link org.xtreemfs.foundation.config.Settings} object only exists if every key was
 * known and every value parsed and lay within its bounds.
 */
package org.xtreemfs.foundation.config;
