#!/bin/bash
# bench/image-umoci.sh [SCRATCH]: env on a multi-GB OCI image vs umoci unpack first (issue 38).
#
# Builds a Debian bookworm image of three layers at bench time (debootstrap from
# deb.debian.org, umoci; about 3.5 GB unpacked with the default packages) once, and
# keeps it in SCRATCH/img for later runs; then times and measures:
#   A) provenance env --sysroot oci:DIR:final   (provenance's cache cold, then warm)
#   B) umoci unpack --rootless --image DIR:final BUNDLE, then
#      provenance env --sysroot BUNDLE/rootfs
# with /usr/bin/time -v (wall, user+sys, peak RSS) and the disk each way takes
# (du -sb, sampled every BENCH_DU_EVERY seconds during the run, and at the end).
# Checks both give the same components, that every dpkg component's version
# equals dpkg-query's on the unpacked tree, and that the purged package is absent.
# Not part of make check nor of make bench (an hour to build the image, minutes a run).
#
# Re-running only the provenance side on another build, against the umoci figures
# kept from an earlier run (SCRATCH/results):
#   BENCH_SIDE=provenance PROVENANCE=/path/to/provenance bench/image-umoci.sh
#
# Needs: root (debootstrap, chroot), debootstrap, umoci, network to deb.debian.org
# (only to build the image), about 12 GB free under SCRATCH while building and 5 GB
# for the runs (default SCRATCH: /var/tmp/provenance-bench).
# Knobs: PROVENANCE (the binary; default ./provenance), BENCH_PACKAGES (layer 2; a
# different list than the kept image's rebuilds it), BENCH_PURGE (layer 3),
# BENCH_MIRROR, BENCH_RUNS (runs of each side, default 1), BENCH_SIDE (both,
# provenance or umoci; default both), BENCH_DU_EVERY (seconds, default 2),
# BENCH_KEEP=1 keeps the caches and the bundle after the runs.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
S=${1:-/var/tmp/provenance-bench}
PROV=${PROVENANCE:-$here/provenance}
MIRROR=${BENCH_MIRROR:-http://deb.debian.org/debian}
DU_EVERY=${BENCH_DU_EVERY:-2}
PKGS=${BENCH_PACKAGES:-"python3 python3-numpy python3-scipy gcc g++ clang golang-go openjdk-17-jdk-headless llvm-14-dev libboost-all-dev texlive-latex-base rustc cargo gfortran libopencv-dev"}
RUNS=${BENCH_RUNS:-1}
SIDE=${BENCH_SIDE:-both}
case $SIDE in both|provenance|umoci) ;; *) echo "image-umoci: BENCH_SIDE is both, provenance or umoci" >&2; exit 1;; esac
case $RUNS in ''|*[!0-9]*|0) echo "image-umoci: BENCH_RUNS is a count" >&2; exit 1;; esac
# layer 3 removes these: a package purged (dpkg status rewritten, its files whiteouts)
# and every file under /usr/share/doc (thousands of whiteouts)
PURGE=${BENCH_PURGE:-python3-scipy}

die() { echo "image-umoci: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
want_stamp="packages: $PKGS; purge: $PURGE"
for c in debootstrap umoci /usr/bin/time python3; do
	command -v "$c" >/dev/null || die "missing $c (apt-get install -y debootstrap umoci time)"
done
[ -x "$PROV" ] || die "no provenance binary at $PROV (run make first)"
mkdir -p "$S"
S=$(cd "$S" && pwd)
avail=$(df -B1 --output=avail "$S" | tail -1)
[ "$avail" -gt $((8 * 1024 * 1024 * 1024)) ] || [ -e "$S/img/index.json" ] ||
	die "less than 8 GB free under $S"
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ---- 1. the root: debootstrap minbase, then packages --------------------------------
B="$S/build"   # the umoci bundle the layers are made in
mounted=
cleanup_mounts() { [ -z "$mounted" ] || umount "$B/rootfs/proc" 2>/dev/null || true; }
trap cleanup_mounts EXIT

if [ -e "$S/img/.complete" ] && [ "$(cat "$S/img/.complete")" != "$want_stamp" ]; then
	log "the kept image was built with other packages ($(cat "$S/img/.complete")): rebuilding"
	rm -f "$S/img/.complete"
fi
if [ ! -e "$S/img/.complete" ]; then
	rm -rf "$S/img" "$B" "$S/results"
	if [ ! -e "$S/rootfs/.debootstrap-done" ]; then
		rm -rf "$S/rootfs"
		log "debootstrap --variant=minbase bookworm"
		debootstrap --variant=minbase bookworm "$S/rootfs" "$MIRROR" >"$S/debootstrap.log" 2>&1 ||
			die "debootstrap failed (see $S/debootstrap.log)"
		touch "$S/rootfs/.debootstrap-done"
	fi
	rm -f "$S/rootfs/.debootstrap-done"

	# layer 1: the minbase root
	log "layer 1: umoci init/new, the minbase root"
	umoci init --layout "$S/img"
	umoci new --image "$S/img:base"
	umoci unpack --image "$S/img:base" "$B" >/dev/null
	rmdir "$B/rootfs"
	mv "$S/rootfs" "$B/rootfs"
	umoci repack --refresh-bundle --image "$S/img:base" "$B"

	# layer 2: packages
	log "layer 2: apt-get install $PKGS"
	R="$B/rootfs"
	printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"; chmod 755 "$R/usr/sbin/policy-rc.d"
	mount -t proc proc "$R/proc"; mounted=1
	chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get -q update >"$S/apt.log" 2>&1
	# shellcheck disable=SC2086
	chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install $PKGS >>"$S/apt.log" 2>&1 ||
		die "apt-get install failed (see $S/apt.log)"
	chroot "$R" apt-get clean
	rm -rf "$R/var/lib/apt/lists/"* "$R/usr/sbin/policy-rc.d"
	umount "$R/proc"; mounted=
	umoci repack --refresh-bundle --image "$S/img:pkgs" "$B"

	# layer 3: whiteouts (a purged package, /usr/share/doc emptied)
	log "layer 3: purge $PURGE, empty /usr/share/doc"
	chroot "$R" dpkg -L "$PURGE" >"$S/purge.list"
	read -r purged_files pkg_bytes < <(python3 -c '
import os, sys
n = b = 0
for l in open(sys.argv[2]):
    p = sys.argv[1] + l.rstrip("\n")
    if os.path.isfile(p) and not os.path.islink(p):
        n += 1; b += os.path.getsize(p)
print(n, b)' "$R" "$S/purge.list")
	doc_bytes=$(du -sb "$R/usr/share/doc" | cut -f1)
	mount -t proc proc "$R/proc"; mounted=1
	chroot "$R" env DEBIAN_FRONTEND=noninteractive apt-get -q -y purge "$PURGE" >>"$S/apt.log" 2>&1
	umount "$R/proc"; mounted=
	rm -rf "$R/usr/share/doc/"*
	echo "$((doc_bytes + pkg_bytes))" >"$S/whiteout-bytes"
	echo "$purged_files" >"$S/purged-files"
	umoci repack --refresh-bundle --image "$S/img:final" "$B"
	umoci gc --layout "$S/img"
	du -sb "$R" | cut -f1 >"$S/unpacked-bytes"
	rm -rf "$B"
	echo "$want_stamp" >"$S/img/.complete"
fi
rm -rf "$B"

# ---- 2. the runs ------------------------------------------------------------------
blob_bytes=$(du -sb "$S/img" | cut -f1)
log "image: $S/img (tag final), $blob_bytes bytes of blobs, $(cat "$S/unpacked-bytes" 2>/dev/null || echo '?') bytes unpacked; $want_stamp"
# SCRATCH/results keeps each run's figures and outputs (small files); a
# BENCH_SIDE=provenance run reuses the umoci side's from there.
RES="$S/results"
mkdir -p "$RES"

# sample_du DIR OUTFILE: prints the largest du -sb of DIR until killed
sample_du() {
	local max=0 n
	while :; do
		n=$(du -sb "$1" 2>/dev/null | cut -f1) || n=0
		[ -n "$n" ] && [ "$n" -gt "$max" ] && { max=$n; echo "$max" >"$2"; }
		sleep "$DU_EVERY"
	done
}
# timed NAME DUDIR CMD...: /usr/bin/time -v, sampling DUDIR's size meanwhile
timed() {
	local name=$1 dudir=$2 pid; shift 2
	echo 0 >"$RES/$name.dupeak"
	uptime >"$RES/$name.load"
	sample_du "$dudir" "$RES/$name.dupeak" & pid=$!
	/usr/bin/time -v -o "$RES/$name.time" "$@" >"$RES/$name.out" 2>"$RES/$name.err" || {
		kill "$pid"; wait "$pid" 2>/dev/null || true
		cat "$RES/$name.err" >&2; die "$name failed: $*"; }
	kill "$pid"; wait "$pid" 2>/dev/null || true
	uptime >>"$RES/$name.load"
	local fin; fin=$(du -sb "$dudir" 2>/dev/null | cut -f1 || echo 0)
	[ "$fin" -gt "$(cat "$RES/$name.dupeak")" ] && echo "$fin" >"$RES/$name.dupeak"
	echo "$fin" >"$RES/$name.dufinal"
}

# prov_version: which provenance build a side ran
prov_version() {
	local v c
	v=$("$PROV" --version 2>&1 | head -1) || true
	c=$(git -C "$(dirname "$(readlink -f "$PROV")")" describe --always --dirty 2>/dev/null) || c="not in a git tree"
	echo "$v, $PROV ($c)"
}

if [ "$SIDE" != umoci ]; then
	rm -f "$RES"/A-*
	prov_version >"$RES/A.version"
	for i in $(seq "$RUNS"); do
		rm -rf "$S/cacheA"
		log "A$i cold: provenance env --sysroot oci:$S/img:final ($(uptime | sed 's/.*load/load/'))"
		timed "A-cold-$i" "$S/cacheA" "$PROV" env --cache "$S/cacheA" --sysroot "oci:$S/img:final" --format json
		log "A$i warm"
		timed "A-warm-$i" "$S/cacheA" "$PROV" env --cache "$S/cacheA" --sysroot "oci:$S/img:final" --format json
	done
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$S/cacheA"
fi
if [ "$SIDE" != provenance ]; then
	rm -f "$RES"/B-* "$RES/dpkg.list"
	prov_version >"$RES/B.version"
	umoci --version >"$RES/B.umoci-version" 2>&1 || true
	for i in $(seq "$RUNS"); do
		rm -rf "$S/cacheB" "$S/bundle"
		log "B$i: umoci unpack --rootless ($(uptime | sed 's/.*load/load/'))"
		timed "B-unpack-$i" "$S/bundle" umoci unpack --rootless --image "$S/img:final" "$S/bundle"
		log "B$i: provenance env --sysroot bundle/rootfs"
		timed "B-env-$i" "$S/cacheB" "$PROV" env --cache "$S/cacheB" --sysroot "$S/bundle/rootfs" --format json
		# the truth from dpkg, on the unpacked tree
		dpkg-query --admindir="$S/bundle/rootfs/var/lib/dpkg" -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
			awk '$1 ~ /^ii/ {print $2, $3}' | sort -u >"$RES/dpkg.list"
		du -sb "$S/bundle/rootfs" | cut -f1 >"$S/unpacked-bytes"
	done
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$S/cacheB" "$S/bundle"
fi
ls "$RES"/A-cold-1.time "$RES"/B-unpack-1.time "$RES/dpkg.list" >/dev/null 2>&1 ||
	die "no figures for one side in $RES: run with BENCH_SIDE=both first"

# ---- 3. the same answer, the truth from dpkg, and the table -----------------------
rc=0
report="$RES/report-$(date -u +%Y%m%dT%H%M%SZ).txt"
python3 - "$S" "$PURGE" <<'EOF' | tee "$report" || rc=$?
import glob, json, os, sys
S, purge = sys.argv[1], sys.argv[2]
RES = S + "/results"
def runs(prefix):
    return sorted({int(f.rsplit("-", 1)[1].split(".")[0]) for f in glob.glob(f"{RES}/{prefix}-*.time")})
def comps(name):
    return json.load(open(f"{RES}/{name}.out"))["components"]
def key(c):
    return json.dumps(c, sort_keys=True)
def t(name):
    r = {}
    for line in open(f"{RES}/{name}.time"):
        k, _, v = line.strip().rpartition(": ")
        r[k] = v
    wall = r["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    cpu = float(r["User time (seconds)"]) + float(r["System time (seconds)"])
    rss = int(r["Maximum resident set size (kbytes)"]) / 1024
    peak = int(open(f"{RES}/{name}.dupeak").read())
    fin = int(open(f"{RES}/{name}.dufinal").read())
    return secs, cpu, rss, peak, fin
def load(name):
    ls = [l.split("load average:")[-1].strip() for l in open(f"{RES}/{name}.load")]
    return " → ".join(ls)
def when(name):
    return os.path.getmtime(f"{RES}/{name}.time")
ra, rb = runs("A-cold"), runs("B-unpack")
b_ref = comps(f"B-env-{rb[-1]}")
ok = True
dpkg = dict(l.split() for l in open(f"{RES}/dpkg.list"))
import time as _t
def stamp(x): return _t.strftime("%Y-%m-%d %H:%M UTC", _t.gmtime(x))
print(f"provenance (A): {open(RES + '/A.version').read().strip()}; runs at {stamp(when('A-cold-1'))}")
print(f"provenance (B2): {open(RES + '/B.version').read().strip()}; umoci: {open(RES + '/B.umoci-version').read().strip()}; "
      f"runs at {stamp(when('B-unpack-1'))}")
for n in ["A-cold-%d" % i for i in ra] + ["A-warm-%d" % i for i in ra] + ["B-env-%d" % i for i in rb]:
    c = comps(n)
    same = sorted(map(key, c)) == sorted(map(key, b_ref))
    deb = {x["name"]: x["version"] for x in c if x.get("kind") == "dpkg"}
    wrong = {k: (v, dpkg.get(k)) for k, v in deb.items() if dpkg.get(k) != v}
    print(f"{n}: {len(c)} components, equal to B-env-{rb[-1]}'s: {same}; {len(deb)} dpkg components, "
          f"version not as dpkg-query says: {len(wrong)} {sorted(wrong.items())[:5]}; {purge} among them: {purge in deb}")
    ok = ok and same and len(deb) > 0 and not wrong and purge not in deb
print(f"dpkg-query on the unpacked tree: {len(dpkg)} installed packages; {purge} installed: {purge in dpkg}")
print(f"A's sysroot: {json.load(open(RES + '/A-cold-1.out')).get('sysroot')}")
GB = 1e9
rows = []
for i in ra:
    rows.append((f"A{i} cold: env oci:", t(f"A-cold-{i}"), load(f"A-cold-{i}")))
    rows.append((f"A{i} warm: env oci:", t(f"A-warm-{i}"), load(f"A-warm-{i}")))
btots = []
for i in rb:
    b1, b2 = t(f"B-unpack-{i}"), t(f"B-env-{i}")
    btot = (b1[0] + b2[0], b1[1] + b2[1], max(b1[2], b2[2]), b1[3] + b2[3], b1[4] + b2[4])
    btots.append(btot)
    rows.append((f"B{i}.1: umoci unpack", b1, load(f"B-unpack-{i}")))
    rows.append((f"B{i}.2: env on bundle", b2, load(f"B-env-{i}")))
    rows.append((f"B{i} total", btot, ""))
print()
print("| run | wall s | user+sys s | peak RSS MiB | peak disk GB (sampled) | disk at end GB | load average before → after |")
print("|---|---:|---:|---:|---:|---:|---|")
for n, (s, c, r, p, f), l in rows:
    print(f"| {n} | {s:.1f} | {c:.1f} | {r:.0f} | {p / GB:.2f} | {f / GB:.2f} | {l} |")
def mean(xs): return sum(xs) / len(xs)
ac = [t(f"A-cold-{i}") for i in ra]
aw = [t(f"A-warm-{i}") for i in ra]
bt = [mean([b[k] for b in btots]) for k in range(5)]
print()
print(f"means: A cold / B total: wall {mean([a[0] for a in ac]) / bt[0]:.2f}, "
      f"user+sys {mean([a[1] for a in ac]) / bt[1]:.2f}, peak disk {mean([a[3] for a in ac]) / bt[3]:.2f}, "
      f"disk at end {mean([a[4] for a in ac]) / bt[4]:.2f}; A warm / B total: wall {mean([a[0] for a in aw]) / bt[0]:.3f}")
sys.exit(0 if ok else 1)
EOF
echo "image: $S/img, $blob_bytes bytes of blobs, $(cat "$S/unpacked-bytes") bytes unpacked; layers: $(python3 -c '
import json,sys
S=sys.argv[1]
idx=json.load(open(S+"/img/index.json"))
m=[x for x in idx["manifests"] if x.get("annotations",{}).get("org.opencontainers.image.ref.name")=="final"][0]
man=json.load(open(S+"/img/blobs/sha256/"+m["digest"].split(":")[1]))
print(", ".join(str(l["size"]) for l in man["layers"]), "bytes (compressed); manifest", m["digest"])' "$S")" | tee -a "$report"
[ ! -e "$S/whiteout-bytes" ] ||
	echo "whiteouts of layer 3 removed $(cat "$S/whiteout-bytes") bytes ($(cat "$S/purged-files") files of $PURGE, and /usr/share/doc)" | tee -a "$report"
echo "report: $report"
exit $rc
