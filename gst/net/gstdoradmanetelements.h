/* doradma network plugin — the elements' registration.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_ELEMENTS_H__
#define __GST_DORADMA_NET_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS GST_ELEMENT_REGISTER_DECLARE (doradmanetsink);
GST_ELEMENT_REGISTER_DECLARE (doradmanetsrc);

G_END_DECLS
#endif /* __GST_DORADMA_NET_ELEMENTS_H__ */
