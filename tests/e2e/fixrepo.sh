# Sourced by the fixcheck tests that build an upstream history in $up: a
# fixed identity, one commit an hour from 2024-01-01 (commit prints its
# sha), and ed FILE OLD NEW... (exact text replaced once each, or fail).
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
g() { git -C "$up" "$@"; }
n=0
commit() {
	n=$((n + 1))
	g add -A
	GIT_AUTHOR_DATE="@$((1704067200 + n * 3600)) +0000" GIT_COMMITTER_DATE="@$((1704067200 + n * 3600)) +0000" \
		g commit -qm "$1" || fail "commit $1"
	g rev-parse HEAD
}
ed() { # ed FILE OLD NEW...: replace exact text (once each)
	python3 - "$@" <<'PY' || fail "edit $1"
import sys
p = sys.argv[1]; s = open(p).read()
for a, b in zip(sys.argv[2::2], sys.argv[3::2]):
    if a not in s: sys.exit("no %r in %s" % (a, p))
    s = s.replace(a, b, 1)
open(p, "w").write(s)
PY
}

# A Debian source package of $pkg 1.0 made from the upstream tag v1.0
# ($w/$pkg_1.0.orig.tar.gz, a clone checked out in $wk): quilt_patch NAME
# HEADER turns the clone's uncommitted changes into debian/patches/NAME (added
# to $w/series); build_pkg REVISION runs dpkg-source -b on the series so far,
# puts the result in $pool (the archive the test serves) and unpacks it with
# dpkg-source -x into $w/xREVISION, the truth the test compares against.
quilt_patch() {
	printf '%s\n---\n' "$2" > "$w/$1"
	git -C "$wk" add -A
	git -C "$wk" diff --cached >> "$w/$1"
	git -C "$wk" -c user.name=d -c user.email=d@example.invalid commit -qm "$1"
	echo "$1" >> "$w/series"
}
build_pkg() {
	local d=$w/b$1 s=$w/b$1/$pkg-1.0
	mkdir -p "$d" && tar -C "$d" -xzf "$w/${pkg}_1.0.orig.tar.gz"
	mkdir -p "$s/debian/source" "$s/debian/patches"
	sed "s/^Source: libfoo/Source: $pkg/" "$TOP/fixtures/srcpkg/debian/control" > "$s/debian/control"
	cp "$TOP/fixtures/srcpkg/debian/rules" "$s/debian/"
	printf '%s (1.0-%s) unstable; urgency=medium\n\n  * Test.\n\n -- Provenance Tests <tests@example.invalid>  Mon, 01 Jan 2024 10:00:00 +0000\n' \
		"$pkg" "$1" > "$s/debian/changelog"
	echo "3.0 (quilt)" > "$s/debian/source/format"
	cp "$w/series" "$s/debian/patches/"
	while read -r p; do cp "$w/$p" "$s/debian/patches/"; done < "$w/series"
	cp "$w/${pkg}_1.0.orig.tar.gz" "$d/"
	(cd "$d" && dpkg-source --no-check -b "$pkg-1.0") >"$d/b.log" 2>&1 || { cat "$d/b.log"; fail "dpkg-source -b 1.0-$1"; }
	cp "$d/${pkg}_1.0-$1.dsc" "$d/${pkg}_1.0-$1".debian.tar.* "$pool/"
	(cd "$d" && dpkg-source --no-check -x "${pkg}_1.0-$1.dsc" "$w/x$1") >/dev/null 2>&1 || fail "dpkg-source -x 1.0-$1"
}

# The truth per hunk, from GNU patch on an unpacked tree: hunk SHA K prints
# hunk K (from 0) of commit SHA of $up as a patch; fwd DIR SHA K and
# rev DIR SHA K say whether it applies forward / in reverse on DIR
# (--dry-run, whitespace-insensitive, fuzz 2).
hunk() { # hunk SHA K: hunk K (from 0) of SHA as a patch on stdout
	g show --format= "$1" | python3 -c '
import sys
want, k, hdr, cur, out = int(sys.argv[1]), -1, [], None, None
for line in sys.stdin:
    if line.startswith("diff --git"):
        hdr, cur = [line], None
    elif line.startswith("@@"):
        k += 1; cur = k
        if k == want: out = hdr + [line]
    elif cur is None:
        hdr.append(line)
    elif cur == want:
        out.append(line)
sys.stdout.write("".join(out or []))' "$2"
}
fwd() { hunk "$2" "$3" | patch -d "$1" -p1 --dry-run -s -f -l -F2 >/dev/null 2>&1; }
rev() { hunk "$2" "$3" | patch -d "$1" -p1 --dry-run -s -f -l -R -F2 >/dev/null 2>&1; }

# serve_archive: the archive under $w/www over HTTP on a free local port
# (python3's http.server, ended by the EXIT trap); sets port and http_pid
serve_archive() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 "$port" --directory "$w/www" >"$w/http.log" 2>&1 &
	http_pid=$!
	trap 'kill $http_pid 2>/dev/null; rm -rf "$T"' EXIT
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
}
