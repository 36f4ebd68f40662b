#!/usr/bin/env bash
# elfutils' own test suite as ground truth: Debian 12's elfutils source
# package (apt-get source, through a private sources list: the system's apt
# configuration is not touched), its tests/run-*.sh scripts and test cores.
# elfutils-suite.py reads every x86_64, i386 and x32 case (and the other
# architectures' backtrace cores) from the scripts and compares provenance's
# JSON: modules (ranges, build IDs, names, each once), frames (pcs,
# functions, inlines, file:line), threads, signal, pid. Nothing of elfutils
# is kept in the repository; the extracted tests/ folder is kept under
# tests/debs/ (which `make clean` leaves, as the packages `make deps`
# downloads there), so CI's plain and sanitizer passes fetch it once.
# Skips when deb-src is unreachable (no network).
. "$(dirname "$0")/lib.sh"
for c in apt-get dpkg-source eu-readelf c++filt python3 flock; do
	command -v $c >/dev/null || skip "$c not installed"
done

# Checks believed wrong, each with why (an ID as the table prints it).
# None today: every check agrees.
BELIEVED_WRONG=(
)

SHARED=${PROVENANCE_TEST_SHARED:-$TOP/tests/debs}
SRC=$SHARED/elfutils-src
DEBSRC=${ELFUTILS_DEBSRC:-"deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main"}
mkdir -p "$SHARED" || fail "cannot create $SHARED"

fetch_source() {
	local a="$T/apt" why
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/src" || return 1
	printf '%s\n' "$DEBSRC" >"$a/sources.list"
	local o=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o Debug::NoLocking=1
		-o Acquire::Retries=0 -o Acquire::http::Timeout=30 -o APT::Sandbox::User="$(id -un)")
	why=$(timeout 300 apt-get "${o[@]}" -qq update 2>&1)
	if ! ls "$a"/lists/*_Sources* >/dev/null 2>&1; then
		echo "$why" | tail -3
		return 77
	fi
	( cd "$a/src" && timeout 300 apt-get "${o[@]}" -qq source --download-only elfutils ) >"$a/log" 2>&1 ||
		{ tail -3 "$a/log"; return 77; }
	local dsc
	dsc=$(ls "$a"/src/elfutils_*.dsc 2>/dev/null | head -1)
	[ -n "$dsc" ] || return 77
	dpkg-source --no-check -x "$dsc" "$a/x" >"$a/log" 2>&1 || { tail -3 "$a/log"; return 1; }
	[ -f "$a/x/tests/run-unstrip-n.sh" ] || return 1
	rm -rf "$SRC.tmp.$$" && mv "$a/x/tests" "$SRC.tmp.$$" &&
		basename "$dsc" .dsc >"$SRC.tmp.$$/.package" &&
		rm -rf "$SRC" && mv "$SRC.tmp.$$" "$SRC"
}

# one test run fetches; a second waits for it (the lock), then uses its copy
exec 9>"$SHARED/.elfutils-src.lock"
flock 9
if [ ! -f "$SRC/.package" ]; then
	fetch_source
	rc=$?
	[ $rc = 77 ] && skip "deb-src of Debian 12 is unreachable ($DEBSRC): cannot fetch elfutils' source package"
	[ $rc = 0 ] || fail "cannot unpack elfutils' source package"
fi
flock -u 9
note "elfutils' tests from $(cat "$SRC/.package") ($SRC)"

args=()
for id in "${BELIEVED_WRONG[@]}"; do
	args+=(--believed-wrong "$id")
done
python3 "$TOP/tests/e2e/elfutils-suite.py" "$SRC" "$PROVENANCE" "$T/work" ${args[@]+"${args[@]}"} ||
	fail "provenance disagrees with elfutils' test suite (see the table above)"
echo "ok: every check agrees with elfutils' test suite"
