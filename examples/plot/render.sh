#!/bin/sh
# Renders the README's roofline picture: ridgeline plot to SVG, then headless Chromium to PNG.
# Needs a built CLI (build/bin/ridgeline) and Debian's chromium (apt-get install chromium).
# Usage: examples/plot/render.sh [build dir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-"$here/../../build"}
"$build/bin/ridgeline" plot -m llama-3.1-8b -H h100-sxm -b 1..1024x2 -c 0,4096,32768 -o "$here/roofline.svg"
page=$(mktemp -d)
trap 'rm -rf "$page"' EXIT
# The SVG is 1000 x 500; a page of the same size with no margin.
printf '<html><body style="margin:0"><img src="file://%s" width="1000" height="500"></body></html>' "$here/roofline.svg" > "$page/index.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$page/profile" --hide-scrollbars \
    --window-size=1000,500 --screenshot="$here/roofline.png" "file://$page/index.html" 2>/dev/null
echo "wrote $here/roofline.svg and $here/roofline.png"
