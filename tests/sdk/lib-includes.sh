#!/bin/bash
# The installed library (gst/doradma/) includes no plugin header: every
# #include of its sources and headers names a header of its own folder,
# config.h, one of the lib's (lib/, cuda/), or a system/GStreamer header,
# and none names a file of the plugin's folder (gst/). Usage: lib-includes.sh
# <source root>.
set -u
top=$1
lib=$top/gst/doradma
plugin=$top/gst
bad=0
# a header of the plugin's folders (ring/, dora/, cuda/, net/ and gst/ itself)
plugin_header() {
  [ -n "$(find "$plugin" -path "$lib" -prune -o -type f -name "$1" -print -quit)" ]
}
[ -d "$lib" ] || { echo "FAIL: no library folder $lib"; exit 1; }
for f in "$lib"/*.c "$lib"/*.h; do
  while IFS= read -r line; do
    inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/' <<<"$line")
    base=${inc##*/}
    case "$inc" in
      gst/doradma/*) [ -f "$top/$inc" ] && continue ;;
    esac
    if plugin_header "$base" || [[ "$inc" == gst/gstdoradma* ]]; then
      echo "FAIL: ${f#"$top"/} includes the plugin's header $inc"
      bad=1
    elif [[ "$line" == *\"* ]] && [ ! -f "$lib/$inc" ] && [ "$inc" != config.h ] \
        && [ ! -f "$top/lib/$inc" ] && [ ! -f "$top/cuda/$inc" ]; then
      echo "FAIL: ${f#"$top"/} includes \"$inc\", which is neither the library's nor lib/'s or cuda/'s"
      bad=1
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f")
done
[ $bad = 0 ] && echo "PASS: gst/doradma/ includes no plugin header"
exit $bad
