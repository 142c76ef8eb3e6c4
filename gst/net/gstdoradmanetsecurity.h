/* doradma network plugin — the security settings doradmanetsink and
 * doradmanetsrc share (docs/network.md, "Authentication", "Encryption"):
 * `key-file`, `encrypt` and `allowed-peers`, their GParamSpecs and their
 * check at start, written once for both elements.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SECURITY_H__
#define __GST_DORADMA_NET_SECURITY_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* Makes properties[key_file], properties[encrypt] and
 * properties[allowed_peers] (installed by the caller with the rest): the
 * sender's (doradmanetsink: its blurbs speak of the receiver) when
 * `sender`, else the receiver's. */
void gst_doradma_net_security_param_specs (GParamSpec ** properties,
    guint key_file, guint encrypt, guint allowed_peers, gboolean sender);

/* start()'s check of the security settings: encrypt needs a key_file;
 * allowed_peers (the property's text) parsed into *allow (NULL: anyone);
 * the key read from key_file into *key (NULL without a key_file: the
 * caller warns that the stream is unauthenticated). A fault posts
 * `element`'s error naming the setting (the hint names the other side:
 * the receiver when `sender`) and returns FALSE, *allow and *key NULL. */
gboolean gst_doradma_net_security_start (GstElement * element,
    gboolean sender, gboolean encrypt, const gchar * key_file,
    const gchar * allowed_peers, GPtrArray ** allow, GBytes ** key);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SECURITY_H__ */
