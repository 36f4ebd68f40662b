#!/bin/bash
# Python 3.13 (the _Py_DebugOffsets path): Debian trixie's python3.13 and the
# libraries it needs are fetched with apt (a private apt state under the test
# directory, the host's Debian archive keyring), unpacked into a root, and
# crashed inside it (chroot); analyze --sysroot reads the core. Expected
# frames from the script's MARK- comments; the version from the interpreter.
. "$(dirname "$0")/lib.sh"
can_dump_core
[ "$(id -u)" = 0 ] || skip "needs root for chroot"
command -v apt-get >/dev/null || skip "no apt-get"
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || skip "no Debian archive keyring"
if command -v gpg >/dev/null; then
	gpg --show-keys /usr/share/keyrings/debian-archive-keyring.gpg 2>/dev/null | grep -q '13/trixie' ||
		skip "the host's Debian archive keyring has no trixie key"
fi
A=$T/apt
mkdir -p "$A/lists/partial" "$A/archives/partial"
: >"$A/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${PROV_TEST_DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie main" >"$A/sources.list"
apt_=(apt-get -q -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State="$A" -o Dir::State::Lists="$A/lists" -o Dir::State::status="$A/status"
	-o Dir::Cache="$A" -o Dir::Cache::archives="$A/archives" -o APT::Architecture=amd64
	-o Acquire::Languages=none -o Debug::NoLocking=1)
timeout 300 "${apt_[@]}" update >"$T/apt.log" 2>&1 ||
	skip "Debian trixie is not reachable through apt here ($(tail -1 "$T/apt.log"))"
timeout 300 "${apt_[@]}" -y install --download-only --no-install-recommends python3.13-minimal \
	libpython3.13-stdlib >>"$T/apt.log" 2>&1 || { tail -5 "$T/apt.log"; fail "cannot download python3.13"; }
R=$T/root
mkdir -p "$R/tmp"
for d in "$A"/archives/*.deb; do dpkg-deb -x "$d" "$R" || fail "cannot unpack $d"; done
for l in lib lib64 bin sbin; do [ -e "$R/usr/$l" ] && ln -sfn "usr/$l" "$R/$l"; done
cp "$TOP/fixtures/crashers/python-threads.py" "$R/tmp/crash.py"
version=$(chroot "$R" /usr/bin/python3.13 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') ||
	fail "python3.13 does not run in the root"
note "python3.13 $version in $R"
core=$(make_core "$R" chroot "$R" /usr/bin/python3.13 /tmp/crash.py) || exit 1
check_exit 0 "analyze --sysroot" -- "$PROVENANCE" analyze --sysroot "$R" --format json "$core"
cp "$T/last.out" "$T/report.json"
check_eq "$(json_get "$T/report.json" 'd["python"]["version"]')" "$version" "version from the debug offsets"
python3 "$TOP/tests/e2e/python-frames-check.py" "$T/report.json" "$R/tmp/crash.py" crash ||
	fail "Python 3.13 frames"
python3 "$TOP/tests/e2e/check-json-contract.py" "$T/report.json" || fail "JSON contract"
