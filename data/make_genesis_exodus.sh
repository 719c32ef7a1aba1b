#!/usr/bin/env bash
# Writes data/kjv-genesis-exodus.txt: the books of Genesis and Exodus from the
# King James Version (1611, public domain; the copyright has long expired),
# one verse a line without verse numbers. Source: Debian's `bible-kjv` and
# `bible-kjv-text` packages (`apt-get install bible-kjv`).
set -euo pipefail
cd "$(dirname "$0")"
bible -f 'Gen1:1-Gen50:26' 'Ex1:1-Ex40:38' \
  | sed -E 's/^[0-9]?[A-Za-z]+[0-9]+:[0-9]+ //' > kjv-genesis-exodus.txt
wc -c kjv-genesis-exodus.txt
