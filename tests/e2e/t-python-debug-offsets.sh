#!/bin/bash
# Python 3.13 and 3.14 (the _Py_DebugOffsets path): Debian trixie's
# python3.13 and sid's python3.14, with the libraries they need, are fetched
# with apt (a private apt state under the test directory, the host's Debian
# archive keyring), unpacked into a root each, and crashed inside it
# (chroot); analyze --sysroot reads the cores. Expected frames from the
# script's MARK- comments; the version from the interpreter itself.
. "$(dirname "$0")/lib.sh"
# a libdw leak on python3.11-dbg's DWARF (see the file) must not fail ASan runs
export LSAN_OPTIONS="suppressions=$TOP/tests/e2e/lsan-libdw.supp:print_suppressions=0:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
can_dump_core
[ "$(id -u)" = 0 ] || skip "needs root for chroot"
command -v apt-get >/dev/null || skip "no apt-get"
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || skip "no Debian archive keyring"
MIRROR=${PROV_TEST_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ran=0

# one SUITE PY-MINOR CHECK-MODE
one() {
	local suite=$1 py=python3.$2 mode=$3 A=$T/apt-$1 R=$T/root-$1 version core d l
	mkdir -p "$A/lists/partial" "$A/archives/partial" "$R/tmp"
	: >"$A/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $suite main" >"$A/sources.list"
	local apt_=(apt-get -q -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State="$A" -o Dir::State::Lists="$A/lists" -o Dir::State::status="$A/status"
		-o Dir::Cache="$A" -o Dir::Cache::archives="$A/archives" -o APT::Architecture=amd64
		-o Acquire::Languages=none -o Debug::NoLocking=1)
	if ! timeout 300 "${apt_[@]}" update >"$T/apt-$suite.log" 2>&1; then
		note "skip $py: Debian $suite is not reachable through apt here ($(tail -1 "$T/apt-$suite.log"))"
		return 0
	fi
	if ! timeout 300 "${apt_[@]}" -y install --download-only --no-install-recommends "$py-minimal" \
		"lib$py-stdlib" >>"$T/apt-$suite.log" 2>&1; then
		note "skip $py: Debian $suite has no $py ($(tail -1 "$T/apt-$suite.log"))"
		return 0
	fi
	for d in "$A"/archives/*.deb; do dpkg-deb -x "$d" "$R" || fail "cannot unpack $d"; done
	for l in lib lib64 bin sbin; do [ -e "$R/usr/$l" ] && ln -sfn "usr/$l" "$R/$l"; done
	cp "$TOP/fixtures/crashers/python-threads.py" "$R/tmp/crash.py"
	version=$(chroot "$R" "/usr/bin/$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') ||
		fail "$py does not run in the root"
	note "$py $version from Debian $suite"
	core=$(make_core "$R" chroot "$R" "/usr/bin/$py" /tmp/crash.py) || exit 1
	check_exit 0 "$py: analyze --sysroot" -- "$PROVENANCE" analyze --sysroot "$R" --format json "$core"
	cp "$T/last.out" "$T/report-$suite.json"
	check_eq "$(json_get "$T/report-$suite.json" 'd["python"]["version"]')" "$version" \
		"$py: version from the debug offsets"
	python3 "$TOP/tests/e2e/python-frames-check.py" "$T/report-$suite.json" "$R/tmp/crash.py" "$mode" ||
		fail "$py frames"
	python3 "$TOP/tests/e2e/check-json-contract.py" "$T/report-$suite.json" || fail "$py: JSON contract"
	# arguments and locals through the debug offsets (3.14: tagged stack
	# references), against the script's own dump of its frames
	cp "$TOP/fixtures/crashers/python-locals.py" "$R/tmp/locals.py"
	rm -f "$R/tmp/truth.json"
	core=$(make_core "$R" chroot "$R" "/usr/bin/$py" /tmp/locals.py /tmp/truth.json) || exit 1
	check_exit 0 "$py: analyze the locals crash" -- "$PROVENANCE" analyze --sysroot "$R" --format json "$core"
	python3 "$TOP/tests/e2e/python-locals-check.py" "$T/last.out" "$R/tmp/truth.json" ||
		fail "$py: locals against the script"
	ran=$((ran + 1))
}

one trixie 13 crash
# sid's 3.14 is stripped and its eval loop calls handlers and LTO clones
# that have no dynamic symbol: without its -dbg package no native frame is
# named _PyEval_EvalFrameDefault, so the Python frames follow the native ones
one sid 14 crash-unplaced
[ $ran -gt 0 ] || skip "no newer Debian suite reachable through apt: no Python 3.13+ to test"
