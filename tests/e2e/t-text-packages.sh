#!/usr/bin/env bash
# provenance resolve on pasted text with no module names: the packages come
# from the frames' source paths. Ground truth: `dpkg -S` for a Python file of
# the host, a dpkg database made here under --sysroot, a pip layout made here
# (dist-info RECORD), and the build-system path itself for a Fedora
# debugsource path (a guess, marked so).
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"

resolve() {	# resolve INPUT OUT.json [args]: exit 0 or 1 (partial is fine offline)
	local in=$1 out=$2; shift 2
	"$PROVENANCE" resolve "$in" --format json --offline "$@" >"$out" 2>"$T/err"
	local rc=$?
	[ $rc -le 1 ] || { cat "$T/err"; fail "resolve $in exited $rc"; }
}
pkg() {	# pkg OUT.json PATH-SUBSTRING FIELD: the package field of the module
	json_get "$1" "[m['package']['$3'] if m['package'] else None for m in d['modules'] if '$2' in m['path']][0]"
}

# 1. a Fedora debugsource path: package and version from the directory name,
#    a normalised repository path, both marked as guesses
cat > "$T/fedora.txt" <<'TXT'
#0  0x00007f1000a1b520 in amd::Device::create (this=0x0) at /usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/rocclr/cmake/../device/device.cpp:412
#1  0x0000555500001000 in main () at app.c:5
TXT
resolve "$T/fedora.txt" "$T/fedora.json"
check_eq "$(pkg "$T/fedora.json" rocclr name)" rocclr "debugsource package"
check_eq "$(pkg "$T/fedora.json" rocclr version)" 5.5.1-8.fc39 "debugsource version"
check_eq "$(pkg "$T/fedora.json" rocclr guess)" true "debugsource: a guess"
check_eq "$(pkg "$T/fedora.json" rocclr found_by)" path "debugsource: found by"
check_eq "$(json_get "$T/fedora.json" 'd["threads"][0]["frames"][0]["repo_path"]')" rocclr/device/device.cpp "normalised repo_path"
check_eq "$(json_get "$T/fedora.json" 'd["threads"][0]["frames"][1]["repo_path"]')" null "no repo_path for app.c"

# 1b. gdb frames printed "at FILE:LINE" (no library) get the component of
#     their path's package, like the frames that name the library: a mapping
#     made here says package rocclr and librocclr.so* are component "rocclr";
#     two files under the same debugsource root, one frame from the library,
#     one outside any package (app.c: no component)
cat > "$T/rocclr.map" <<'MAP'
[component "rocclr"]
	package = rocclr
	library = librocclr.so*
	repo = https://example.invalid/ROCclr.git
	ref = rocm-{major}.{minor}.{patch}
MAP
cat > "$T/at.txt" <<'TXT'
Program received signal SIGSEGV, Segmentation fault.
#0  0x00007f1000a1b520 in amd::Device::create (this=0x0) at /usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/rocclr/cmake/../device/device.cpp:412
#1  0x00007f1000a1b9a0 in amd::Program::build (this=0x1) at /usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/rocclr/platform/program.cpp:77
#2  0x00007f1000a1c520 in amd::Runtime::init () from /usr/lib64/librocclr.so.5
#3  0x0000555500001000 in main () at app.c:5
TXT
resolve "$T/at.txt" "$T/at.json" --mapping "$T/rocclr.map"
check_eq "$(json_get "$T/at.json" '[f["component"] for f in d["threads"][0]["frames"]]')" \
	'["rocclr", "rocclr", "rocclr", null]' "at FILE:LINE frames: the component of their package root"
check_eq "$(json_get "$T/at.json" 'd["threads"][0]["frames"][1]["repo_path"]')" rocclr/platform/program.cpp \
	"at FILE:LINE: the repository path of the second file under the root"

# 2. a pip layout made here: the distribution from its RECORD
sp="$T/venv/lib/python3.11/site-packages"
mkdir -p "$sp/mylib" "$sp/mylib-4.5.6.dist-info"
echo 'def f(): raise RuntimeError("x")' > "$sp/mylib/core.py"
printf 'Metadata-Version: 2.1\nName: mylib\nVersion: 4.5.6\n' > "$sp/mylib-4.5.6.dist-info/METADATA"
printf 'mylib/core.py,,\nmylib-4.5.6.dist-info/METADATA,,\nmylib-4.5.6.dist-info/RECORD,,\n' > "$sp/mylib-4.5.6.dist-info/RECORD"
cat > "$T/pip.txt" <<TXT
Traceback (most recent call last):
  File "/srv/app/run.py", line 3, in <module>
    f()
  File "$sp/mylib/core.py", line 1, in f
    def f(): raise RuntimeError("x")
RuntimeError: x
TXT
# the pip layout is on this host: read only when asked (--host-packages)
resolve "$T/pip.txt" "$T/pip.json" --host-packages
check_eq "$(pkg "$T/pip.json" mylib kind)" pip "site-packages: kind"
check_eq "$(pkg "$T/pip.json" mylib name)" mylib "site-packages: distribution"
check_eq "$(pkg "$T/pip.json" mylib version)" 4.5.6 "site-packages: version"
check_eq "$(json_get "$T/pip.json" "[m['note'] for m in d['modules'] if 'mylib' in m['path']][0]")" \
	"inferred from a source path in the backtrace" "inference is marked"
# a script outside any install location names no module
check_eq "$(json_get "$T/pip.json" "len([m for m in d['modules'] if 'run.py' in m['path']])")" 0 "no module for run.py"

# 3. a dpkg database made here under --sysroot
root="$T/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/usr/lib/python3/dist-packages/fakeyaml"
echo 'def load(): pass' > "$root/usr/lib/python3/dist-packages/fakeyaml/__init__.py"
cat > "$root/var/lib/dpkg/status" <<'ST'
Package: python3-fakeyaml
Status: install ok installed
Architecture: all
Source: fakeyaml
Version: 9.9-1

ST
printf '/.\n/usr\n/usr/lib/python3/dist-packages/fakeyaml\n/usr/lib/python3/dist-packages/fakeyaml/__init__.py\n' \
	> "$root/var/lib/dpkg/info/python3-fakeyaml.list"
cat > "$T/dpkg.txt" <<'TXT'
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/fakeyaml/__init__.py", line 1, in load
    def load(): pass
RuntimeError: x
TXT
resolve "$T/dpkg.txt" "$T/dpkg.json" --sysroot "$root"
check_eq "$(pkg "$T/dpkg.json" fakeyaml kind)" dpkg "sysroot dist-packages: kind"
check_eq "$(pkg "$T/dpkg.json" fakeyaml name)" python3-fakeyaml "sysroot dist-packages: owner"
check_eq "$(pkg "$T/dpkg.json" fakeyaml version)" 9.9-1 "sysroot dist-packages: version"
check_eq "$(pkg "$T/dpkg.json" fakeyaml guess)" true "sysroot dist-packages: inferred from a source path, a guess"

# 4. the host's dpkg: any Python file of a dist-packages directory
if command -v dpkg >/dev/null && [ -d /usr/lib/python3/dist-packages ]; then
	f=$(find /usr/lib/python3/dist-packages -mindepth 2 -name '*.py' 2>/dev/null | head -1)
	owner=$( [ -n "$f" ] && dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1)
	if [ -n "$owner" ]; then
		printf 'Traceback (most recent call last):\n  File "%s", line 1, in f\n    x\nRuntimeError: x\n' "$f" > "$T/host.txt"
		resolve "$T/host.txt" "$T/host.json" --host-packages
		check_eq "$(json_get "$T/host.json" "d['modules'][0]['package']['name']")" "$owner" "host dist-packages: dpkg -S owner"
		check_eq "$(json_get "$T/host.json" "d['modules'][0]['package']['guess']")" true "host dist-packages: a guess"
		resolve "$T/host.txt" "$T/nohost.json"
		check_eq "$(json_get "$T/nohost.json" "[m['package']['kind'] == 'dpkg' or not m['package']['guess'] for m in d['modules'] if m['package']]")" \
			"[false]" "host dist-packages: not looked up in dpkg without --host-packages (a path guess only)"
		check_eq "$(json_get "$T/host.json" "d['modules'][0]['package']['version']")" \
			"$(dpkg-query -W -f '${Version}' "$owner")" "host dist-packages: version"
	else
		note "no dpkg-owned Python file in /usr/lib/python3/dist-packages: host case not run"
	fi
fi
echo "ok: packages from source paths"
