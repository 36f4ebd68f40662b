#!/usr/bin/env bash
# The dpkg status cap (issue 17 item 17): docs/hardening.md gives 512 MiB, so
# a 270 MiB status (a real stanza and then padding fields) must be read, not
# refused by a lower limit hidden in the buffer; a cap that is hit names the
# file. Ground truth for the owner: the package's .list names the library.
. "$(dirname "$0")/lib.sh"

cap=$(sed -n 's/^#define STATUS_CAP ((size_t)\([0-9]*\) << 20)$/\1/p' "$TOP/resolvers/dpkg.c")
check_eq "$cap" 512 "STATUS_CAP in resolvers/dpkg.c (MiB)"
grep -q "dpkg \`status\` | \`STATUS_CAP\` = $cap MiB" "$TOP/docs/hardening.md" || fail "docs/hardening.md does not say $cap MiB for the status"

R="$T/root"
mkdir -p "$R/var/lib/dpkg/info"
python3 - "$R/var/lib/dpkg/status" <<'PY'
import sys
with open(sys.argv[1], 'wb') as f:
    f.write(b'Package: libbig1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 7.1-2\n\n')
    line = b'X-Pad: ' + b'a' * 4000 + b'\n'
    for i in range((270 << 20) // len(line)):
        f.write(line)
PY
printf '/.\n/usr/lib/libbig.so.1\n' >"$R/var/lib/dpkg/info/libbig1:amd64.list"
printf '#0  0x00007f0000001000 in big () from /usr/lib/libbig.so.1\n' >"$T/bt.txt"
"$PROVENANCE" resolve --offline --sysroot "$R" --format json "$T/bt.txt" >"$T/out.json" 2>"$T/err"
grep -i "limit" "$T/err" && fail "a 270 MiB status was refused below the documented 512 MiB"
check_eq "$(json_get "$T/out.json" '(d["modules"][0].get("package") or {}).get("name")')" libbig1 \
	"owner from a 270 MiB status (the .list names the library)"
rm -f "$R/var/lib/dpkg/status"

# a .list over its cap: the warning names the file
printf 'Package: libbig1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 7.1-2\n\n' >"$R/var/lib/dpkg/status"
truncate -s 257M "$R/var/lib/dpkg/info/libbig1:amd64.list"
"$PROVENANCE" resolve --offline --sysroot "$R" "$T/bt.txt" >/dev/null 2>"$T/err2"
check_match "$(cat "$T/err2")" "warning: dpkg: '/var/lib/dpkg/info/libbig1:amd64.list' is larger than the limit of 268435456 bytes" \
	".list cap warning names the file"
