#!/usr/bin/env bash
# Work proportional to hostile input (issue 17 items 5, 9, 11, 12): each case
# builds the same hostile input at two sizes, N and 2N, and scaling.py checks
# that doubling the input roughly doubles the time (not quadruples it): no
# absolute timing is asserted. Results are also checked (owners against the
# fixtures' own package lists).
. "$(dirname "$0")/lib.sh"
S="$TOP/tests/e2e/scaling.py"
P="$PROVENANCE"

# ---- 5. a path repeated in a dpkg .list, a pip RECORD and a conda files list ----
mkroot() {	# mkroot DIR N
	local R=$1 n=$2 d
	d="$R/usr/lib/python3/dist-packages/x-1.0.dist-info"
	mkdir -p "$R/var/lib/dpkg/info" "$d" "$R/opt/conda/conda-meta"
	printf 'Package: libdup1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n\n' >"$R/var/lib/dpkg/status"
	{ echo /.; yes /usr/lib/libdup.so.1 | head -n "$n"; } >"$R/var/lib/dpkg/info/libdup1:amd64.list"
	printf 'Metadata-Version: 2.1\nName: x\nVersion: 1.0\n' >"$d/METADATA"
	yes 'x/dup.py,,' | head -n "$n" >"$d/RECORD"
	python3 -c 'import json,sys; json.dump({"name":"x","version":"1.0","build":"0","files":["lib/libdup.so"]*int(sys.argv[2])}, open(sys.argv[1],"w"))' \
		"$R/opt/conda/conda-meta/x-1.0-0.json" "$n"
}
mkroot "$T/r0" 10; mkroot "$T/r1" 40000; mkroot "$T/r2" 80000
python3 "$S" "repeated package paths" \
	"$P --cache \$(mktemp -d -p $T) env --sysroot $T/r0" \
	"$P --cache \$(mktemp -d -p $T) env --sysroot $T/r1" \
	"$P --cache \$(mktemp -d -p $T) env --sysroot $T/r2" || fail "repeated package paths"
printf '#0  0x00007f0000001000 in dup () from /usr/lib/libdup.so.1\n' >"$T/bt.txt"
"$P" resolve --offline --sysroot "$T/r2" --format json "$T/bt.txt" >"$T/r2.json"
check_eq "$(json_get "$T/r2.json" '(d["modules"][0].get("package") or {}).get("name")')" libdup1 \
	"owner of the repeated path (the .list names it)"
