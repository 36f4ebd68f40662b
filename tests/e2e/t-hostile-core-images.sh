#!/usr/bin/env bash
# A core whose NT_FILE names one image thousands of times (issue 17 item 6):
# each entry re-read the image (511 PT_NOTEs of 64 KiB) before; it is read
# once per address now. strace counts the reads of the core (pread64 calls, a
# count of work, not a time): 1000 entries read no more than 2 do (before:
# the image's notes once per entry); the report must hold the image once, as
# the core (built by mkcore-one-image.py) maps it once.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (make deps installs it)"
M="$TOP/tests/e2e/mkcore-one-image.py"

python3 "$M" "$T/c1" 2 && python3 "$M" "$T/c2" 1000 || fail "cannot build the cores"
r1=$(count_syscalls pread64 "$PROVENANCE" analyze --format json "$T/c1")
r2=$(count_syscalls pread64 "$PROVENANCE" analyze --format json "$T/c2")
note "pread64 calls (strace): $r1 for 2 NT_FILE entries at one image, $r2 for 1000"
[ "$r1" -gt 0 ] || fail "no pread64 of the core counted: the count measures nothing"
[ "$r2" -le $((2 * r1)) ] || fail "1000 entries at one image made $r2 reads, 2 made $r1: the image is read per entry"
echo "ok: 1000 NT_FILE entries at one image read the core as often as 2 ($r2 vs $r1 pread64 calls)"
"$PROVENANCE" analyze --format json "$T/c2" >"$T/c2.json" || fail "analyze of the 1000-entry core failed"
check_eq "$(json_get "$T/c2.json" '[m["path"] for m in d["modules"] if m["path"] == "/usr/lib/libimg.so"]')" '["/usr/lib/libimg.so"]' \
	"the image is reported once"
