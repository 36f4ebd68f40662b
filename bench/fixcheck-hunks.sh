#!/bin/bash
# fixcheck against a Debian source package on a big history: a generated
# repository of 40,000 commits (bench/gen/mkhunkrepo.py) and a source
# package of its v1.0 (the midpoint) with 50 quilt patches (dpkg-source -b),
# one of which carries fix D with drifted context. Times: the fast-import
# (what a clone costs here), fixcheck cold (the package downloaded from a
# local http.server and imported, the range v1.0..fix walked and its
# patch-ids computed) and warm (everything from the cache); target: warm
# under 150 ms. Not a test: prints figures.
#   bench/fixcheck-hunks.sh [NCOMMITS]   (default 40000; output in bench/out/hunks)
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/bench/out/hunks
PROV=${PROVENANCE:-$TOP/provenance}
N=${1:-40000}
RUNS=${BENCH_RUNS:-10}
export XDG_CONFIG_HOME=$OUT/config XDG_CACHE_HOME=$OUT/xdg-cache LC_ALL=C
unset DEBUGINFOD_URLS
command -v dpkg-source >/dev/null || { echo "no dpkg-source"; exit 0; }
rm -rf "$OUT" && mkdir -p "$OUT"
ms() { python3 -c 'import sys,time; print(int((time.time()-float(sys.argv[1]))*1000))' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }

t0=$(now)
git init -q --bare "$OUT/up.git"
python3 "$TOP/bench/gen/mkhunkrepo.py" "$N" | git -C "$OUT/up.git" fast-import --quiet --export-marks="$OUT/marks"
echo "repository: $N commits, fast-import $(ms "$t0") ms ($(du -sh "$OUT/up.git" | cut -f1))"
mark() { awk -v m=":$1" '$1 == m { print $2 }' "$OUT/marks"; }
fixD=$(mark 900001); fixX=$(mark 900002)

# the source package: v1.0 + 50 patches (49 unrelated one-liners, one carrying fix D)
w=$OUT/deb; mkdir -p "$w/www/debian/pool/main/libf/libfoo"
git -C "$OUT/up.git" archive --prefix=libfoo-1.0/ v1.0 | gzip -n > "$w/libfoo_1.0.orig.tar.gz"
git clone -q "$OUT/up.git" "$w/work" && git -C "$w/work" checkout -q v1.0
for k in $(seq 1 50); do
	if [ "$k" = 37 ]; then
		sed -i 's/^int fix_20(int v) { return v + 20; }$/int fix_20(int v) { return v > 0 ? v + 20 : 0; }/' "$w/work/src/fix.c"
		hdr="Description: fix D\nOrigin: upstream, https://example.invalid/commit/$fixD"
	else
		f=$(( (k * 7) % 200 )); sed -i "5s/.*/int f${f}_5(void) { return -$k; }/" "$w/work/src/f$f.c"
		hdr="Description: local change $k\nForwarded: not-needed"
	fi
	name=$(printf '%02d-change.patch' "$k")
	{ printf "$hdr\n---\n"; git -C "$w/work" diff; } > "$w/$name"
	git -C "$w/work" -c user.name=d -c user.email=d@example.invalid commit -qam "$name"
	echo "$name" >> "$w/series"
done
tar -C "$w" -xzf "$w/libfoo_1.0.orig.tar.gz"
mkdir -p "$w/libfoo-1.0/debian/source" "$w/libfoo-1.0/debian/patches"
cp "$TOP/fixtures/srcpkg/debian/control" "$TOP/fixtures/srcpkg/debian/rules" "$TOP/fixtures/srcpkg/debian/changelog" "$w/libfoo-1.0/debian/"
echo "3.0 (quilt)" > "$w/libfoo-1.0/debian/source/format"
cp "$w"/*.patch "$w/series" "$w/libfoo-1.0/debian/patches/"
(cd "$w" && dpkg-source --no-check -b libfoo-1.0) >"$w/b.log" 2>&1 || { cat "$w/b.log"; exit 1; }
cp "$w"/libfoo_1.0-1.dsc "$w"/libfoo_1.0.orig.tar.gz "$w"/libfoo_1.0-1.debian.tar.* "$w/www/debian/pool/main/libf/libfoo/"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 "$port" --directory "$w/www" >"$w/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
echo "source package: 50 patches ($(grep -c . "$w/series") in the series)"

fc() { "$PROV" --cache "$OUT/cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
	fixcheck "$1" --repo "$OUT/up.git" --at v1.0 --debian-source libfoo=1.0-1 --format json; }
# wall and CPU (user+sys) time of one run, in ms: "WALL CPU"
run_ms() { python3 - "$@" <<'PYT'
import resource, subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((time.time() - t) * 1000), int((r.ru_utime + r.ru_stime) * 1000))
PYT
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
for p in "D:$fixD" "X:$fixX"; do
	name=${p%%:*}; fix=${p#*:}
	t0=$(now); fc "$fix" >"$OUT/$name.json" || true; cold=$(ms "$t0")
	walls=; cpus=
	for r in $(seq "$RUNS"); do
		read -r wt ct < <(run_ms "$PROV" --cache "$OUT/cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
			fixcheck "$fix" --repo "$OUT/up.git" --at v1.0 --debian-source libfoo=1.0-1 --format json)
		walls="$walls $wt"; cpus="$cpus $ct"
	done
	mw=$(median $walls); mc=$(median $cpus)
	verdict=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print(d["how"], " ".join(e["state"] + "/" + str(e["via"]) for e in d["evidence"]))' "$OUT/$name.json")
	echo "fix $name: $verdict; cold $cold ms wall; warm median $mw ms wall, $mc ms CPU ($RUNS runs; load $(cut -d' ' -f1 /proc/loadavg)) $([ "$mw" -lt 150 ] && echo PASS || echo "MISS on wall") (target 150 ms)"
done
