#!/bin/bash
# Issue 34: no source file of gst/ over about 800 lines, so that a newcomer
# can read each whole; a file past it has a responsibility to move into a
# file of its own (as gst/dora/gstdoradmadorasrcsettings.c was).
set -u
top=${1:?usage: gst-file-lines.sh SOURCE_ROOT}
limit=800
over=$(cd "$top" && find gst -name '*.[ch]' -print0 | xargs -0 wc -l |
  awk -v l="$limit" '$2 != "total" && $1 > l')
if [ -z "$over" ]; then
  echo "ok: every .c and .h file of gst/ has at most $limit lines"
  exit 0
fi
echo "FAIL: files of gst/ over $limit lines:"
echo "$over"
exit 1
