#!/bin/bash
# bench/image-umoci.sh [SCRATCH]: env on a multi-GB OCI image vs umoci unpack first (issue 38).
#
# Builds a Debian bookworm image of three layers at bench time (debootstrap from
# deb.debian.org, umoci), then times and measures:
#   A) provenance env --sysroot oci:DIR:TAG    (provenance's cache cold, then warm)
#   B) umoci unpack --rootless --image DIR:TAG BUNDLE, then
#      provenance env --sysroot BUNDLE/rootfs
# with /usr/bin/time -v (wall, user+sys, peak RSS) and the disk each way takes
# (du -sb, sampled every BENCH_DU_EVERY seconds during the run, and at the end).
# Checks both give the same components, and that the package count equals
# dpkg-query's on the unpacked tree. Not part of make check.
#
# Needs: root (debootstrap, chroot), debootstrap, umoci, network to deb.debian.org,
# about 8 GB free under SCRATCH (default /var/tmp/provenance-image-bench).
# Knobs: PROVENANCE (the binary; default ./provenance), BENCH_PACKAGES (layer 2),
# BENCH_MIRROR, BENCH_DU_EVERY (seconds, default 2), BENCH_KEEP=1 keeps SCRATCH.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
S=${1:-/var/tmp/provenance-image-bench}
PROV=${PROVENANCE:-$here/provenance}
MIRROR=${BENCH_MIRROR:-http://deb.debian.org/debian}
DU_EVERY=${BENCH_DU_EVERY:-2}
PKGS=${BENCH_PACKAGES:-"python3 python3-numpy python3-scipy gcc g++ clang golang-go"}
# layer 3 removes these: a package purged (dpkg status rewritten, its files whiteouts)
# and every file under /usr/share/doc (thousands of whiteouts)
PURGE=${BENCH_PURGE:-python3-scipy}

die() { echo "image-umoci: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
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

if [ ! -e "$S/img/.complete" ]; then
	rm -rf "$S/img" "$B"
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
	rm -rf "$B"
	touch "$S/img/.complete"
fi
rm -rf "$B"

# ---- 2. the runs ------------------------------------------------------------------
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
	echo 0 >"$S/$name.dupeak"
	sample_du "$dudir" "$S/$name.dupeak" & pid=$!
	/usr/bin/time -v -o "$S/$name.time" "$@" >"$S/$name.out" 2>"$S/$name.err" || {
		kill "$pid"; wait "$pid" 2>/dev/null || true
		cat "$S/$name.err" >&2; die "$name failed: $*"; }
	kill "$pid"; wait "$pid" 2>/dev/null || true
	local fin; fin=$(du -sb "$dudir" 2>/dev/null | cut -f1 || echo 0)
	[ "$fin" -gt "$(cat "$S/$name.dupeak")" ] && echo "$fin" >"$S/$name.dupeak"
	echo "$fin" >"$S/$name.dufinal"
}

rm -rf "$S/cacheA" "$S/cacheB" "$S/bundle"
log "A cold: provenance env --sysroot oci:$S/img:final"
timed A-cold "$S/cacheA" "$PROV" env --cache "$S/cacheA" --sysroot "oci:$S/img:final" --format json
log "A warm"
timed A-warm "$S/cacheA" "$PROV" env --cache "$S/cacheA" --sysroot "oci:$S/img:final" --format json
log "B: umoci unpack --rootless"
timed B-unpack "$S/bundle" umoci unpack --rootless --image "$S/img:final" "$S/bundle"
log "B: provenance env --sysroot bundle/rootfs"
timed B-env "$S/cacheB" "$PROV" env --cache "$S/cacheB" --sysroot "$S/bundle/rootfs" --format json

# ---- 3. the same answer, and the truth from dpkg --------------------------------
dpkg-query --admindir="$S/bundle/rootfs/var/lib/dpkg" -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
	awk '$1 ~ /^ii/ {print $2, $3}' | sort -u >"$S/dpkg.list"

rc=0
python3 - "$S" "$PURGE" <<'EOF' || rc=$?
import json, sys, re
S, purge = sys.argv[1], sys.argv[2]
def comps(name):
    d = json.load(open(f"{S}/{name}.out"))
    return d["components"]
def key(c):
    return json.dumps(c, sort_keys=True)
a, w, b = comps("A-cold"), comps("A-warm"), comps("B-env")
def t(name):
    r = {}
    for line in open(f"{S}/{name}.time"):
        k, _, v = line.strip().rpartition(": ")
        r[k] = v
    wall = r["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    cpu = float(r["User time (seconds)"]) + float(r["System time (seconds)"])
    rss = int(r["Maximum resident set size (kbytes)"]) / 1024
    peak = int(open(f"{S}/{name}.dupeak").read())
    fin = int(open(f"{S}/{name}.dufinal").read())
    return secs, cpu, rss, peak, fin
same_ab = sorted(map(key, a)) == sorted(map(key, b))
same_aw = sorted(map(key, a)) == sorted(map(key, w))
dpkg = dict(l.split() for l in open(f"{S}/dpkg.list"))
deb_a = {c["name"]: c["version"] for c in a if c.get("kind") == "dpkg"}
wrong = {n: (v, dpkg.get(n)) for n, v in deb_a.items() if dpkg.get(n) != v}
print(f"components: A cold {len(a)}, A warm {len(w)}, B {len(b)}; A == B: {same_ab}; A cold == A warm: {same_aw}")
print(f"dpkg-query on the unpacked tree: {len(dpkg)} installed packages; A's dpkg components: {len(deb_a)}, "
      f"version not as dpkg-query says: {len(wrong)} {sorted(wrong.items())[:5]}")
print(f"{purge} (purged in layer 3): among A's components: {purge in deb_a}; installed per dpkg-query: {purge in dpkg}")
print(f"A's sysroot: {json.load(open(S + '/A-cold.out')).get('sysroot')}")
GB = 1e9
rows = [("A cold: env oci:", t("A-cold")), ("A warm: env oci:", t("A-warm")),
        ("B1: umoci unpack", t("B-unpack")), ("B2: env on bundle", t("B-env"))]
b1, b2 = t("B-unpack"), t("B-env")
btot = (b1[0] + b2[0], b1[1] + b2[1], max(b1[2], b2[2]), b1[3] + b2[3], b1[4] + b2[4])
rows.append(("B total (B1+B2)", btot))
print()
print("| run | wall s | user+sys s | peak RSS MiB | peak disk GB (sampled) | disk at end GB |")
print("|---|---:|---:|---:|---:|---:|")
for n, (s, c, r, p, f) in rows:
    print(f"| {n} | {s:.1f} | {c:.1f} | {r:.0f} | {p / GB:.2f} | {f / GB:.2f} |")
ac, aw = t("A-cold"), t("A-warm")
print()
print(f"A cold / B total: wall {ac[0] / btot[0]:.2f}, user+sys {ac[1] / btot[1]:.2f}, "
      f"peak disk {ac[3] / btot[3]:.2f}, disk at end {ac[4] / btot[4]:.2f}")
print(f"A warm / B total: wall {aw[0] / btot[0]:.3f}; A warm / B2 (env on the tree): wall {aw[0] / b2[0]:.2f}")
sys.exit(0 if same_ab and same_aw and not wrong and purge not in deb_a else 1)
EOF
echo "image: $(du -sb "$S/img" | cut -f1) bytes of blobs; layers: $(python3 -c '
import json,sys
S=sys.argv[1]
idx=json.load(open(S+"/img/index.json"))
m=[x for x in idx["manifests"] if x.get("annotations",{}).get("org.opencontainers.image.ref.name")=="final"][0]
man=json.load(open(S+"/img/blobs/sha256/"+m["digest"].split(":")[1]))
print(", ".join(str(l["size"]) for l in man["layers"]), "bytes (compressed)")' "$S")"
echo "whiteouts of layer 3 removed $(cat "$S/whiteout-bytes") bytes ($(cat "$S/purged-files") files of $PURGE, and /usr/share/doc)"
if [ "${BENCH_KEEP:-0}" != 1 ]; then
	rm -rf "$S/cacheA" "$S/cacheB" "$S/bundle"
fi
exit $rc
