#!/usr/bin/env bash
# Work proportional to hostile input (issue 17 items 5 and 12), checked by
# counts of work, never by time: a path repeated 80,000 times holds at most
# two entries of the package index (the cache's own tables, read with
# python3's sqlite3; each entry was one more probe for every lookup of it,
# quadratic in repeats), and strace counts the METADATA files opened through
# 64 names of one site-packages (as many as through one). Results are also
# checked (owners against the fixtures' own package lists).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (make deps installs it)"
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
mkroot "$T/r2" 80000
check_exit 0 "env of a root whose package lists repeat one path 80,000 times" -- "$P" --cache "$T/c2" env --sysroot "$T/r2"
ix() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$T/c2/cache.sqlite" "$1"; }
check_eq "$(ix "SELECT group_concat(kind) FROM (SELECT DISTINCT i.kind FROM files f JOIN indexes i ON i.id = f.index_id
	WHERE f.path IN ('/usr/lib/libdup.so.1', '/usr/lib/python3/dist-packages/x/dup.py', '/opt/conda/lib/libdup.so') ORDER BY 1)")" \
	"conda,dpkg,pip" "each index holds its repeated path (sqlite3)"
check_eq "$(ix 'SELECT max(n) <= 2 FROM (SELECT count(*) AS n FROM files GROUP BY index_id, path)')" 1 \
	"a path repeated 80,000 times: at most two index entries (sqlite3)"
printf '#0  0x00007f0000001000 in dup () from /usr/lib/libdup.so.1\n' >"$T/bt.txt"
"$P" resolve --offline --sysroot "$T/r2" --format json "$T/bt.txt" >"$T/r2.json"
check_eq "$(json_get "$T/r2.json" '(d["modules"][0].get("package") or {}).get("name")')" libdup1 \
	"owner of the repeated path (the .list names it)"

# ---- 12. one site-packages reached through 63 more symlinked venvs ----
mksites() {	# mksites ROOT NPKGS NLINKS
	python3 - "$@" <<'PY'
import os, sys
root, k, nl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sp = os.path.join(root, "opt/venv0/lib/python3.11/site-packages")
os.makedirs(sp)
for i in range(1, k + 1):
    d = os.path.join(sp, "pkg%d-1.0.dist-info" % i)
    os.mkdir(d)
    open(os.path.join(d, "METADATA"), "w").write("Metadata-Version: 2.1\nName: pkg%d\nVersion: 1.0\n" % i)
    open(os.path.join(d, "RECORD"), "w").write("pkg%d/__init__.py,,\n" % i)
for i in range(1, nl + 1):
    os.makedirs(os.path.join(root, "opt/venv%d" % i))
    os.symlink("../venv0/lib", os.path.join(root, "opt/venv%d/lib" % i))
PY
}
mksites "$T/s1" 1500 0; mksites "$T/s64" 1500 63
metadata_reads() { count_opens '\.dist-info/METADATA$' "$P" --cache "$(mktemp -d -p "$T")" env --sysroot "$1"; }
ndist=$(ls -d "$T/s1"/opt/venv0/lib/python3.11/site-packages/*.dist-info | wc -l)
r1=$(metadata_reads "$T/s1"); r64=$(metadata_reads "$T/s64")
note "METADATA opens (strace): $r1 for $ndist distributions, $r64 through 64 names"
[ "$r1" -ge "$ndist" ] || fail "only $r1 METADATA opens for $ndist distributions: the count misses them"
check_eq "$r64" "$r1" "METADATA opens through 64 names of one site-packages = through one (each real directory once)"
"$P" env --sysroot "$T/s64" --format json >"$T/s64.json"
check_eq "$(json_get "$T/s64.json" 'sum(1 for c in (d if isinstance(d, list) else d.get("components", [])) if str(c.get("name","")).startswith("pkg"))')" 1500 \
	"each of the 1500 distributions listed once (ls counts them: $(ls "$T/s1/opt/venv0/lib/python3.11/site-packages" | wc -l))"
# a library reached through an alias name resolves to the distribution whose RECORD lists it
printf 'pkg7/_ext.so,,\n' >>"$T/s64/opt/venv0/lib/python3.11/site-packages/pkg7-1.0.dist-info/RECORD"
printf '#0  0x00007f0000001000 in f () from /opt/venv42/lib/python3.11/site-packages/pkg7/_ext.so\n' >"$T/bt7.txt"
"$P" resolve --offline --sysroot "$T/s64" --format json "$T/bt7.txt" >"$T/bt7.json"
check_eq "$(json_get "$T/bt7.json" '(d["modules"][0].get("package") or {}).get("name")')" pkg7 \
	"owner through a symlinked site-packages (its RECORD lists the library)"
