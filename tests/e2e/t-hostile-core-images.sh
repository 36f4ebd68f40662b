#!/usr/bin/env bash
# A core whose NT_FILE names one image thousands of times (issue 17 item 6):
# each entry re-read the image (511 PT_NOTEs of 64 KiB) before; it is read
# once per address now. scaling.py compares 1 entry with 1000 (the work must
# stay about the same, not grow 1000-fold); the report must hold the image
# once, as the core (built by mkcore-one-image.py) maps it once.
. "$(dirname "$0")/lib.sh"
S="$TOP/tests/e2e/scaling.py"
M="$TOP/tests/e2e/mkcore-one-image.py"

python3 "$M" "$T/c0" 1 && python3 "$M" "$T/c1" 2 && python3 "$M" "$T/c2" 1000 || fail "cannot build the cores"
python3 "$S" "NT_FILE entries at one image" \
	"$PROVENANCE analyze --format json $T/c0" \
	"$PROVENANCE analyze --format json $T/c1" \
	"$PROVENANCE analyze --format json $T/c2" 3 || fail "1000 entries at one image cost more than 3 times 2"
"$PROVENANCE" analyze --format json "$T/c2" >"$T/c2.json" || fail "analyze of the 1000-entry core failed"
check_eq "$(json_get "$T/c2.json" '[m["path"] for m in d["modules"] if m["path"] == "/usr/lib/libimg.so"]')" '["/usr/lib/libimg.so"]' \
	"the image is reported once"
