#!/usr/bin/env bash
# A hostile sysroot (absolute symlinks out of it, "../" chains in a dpkg
# .list, a .git/HEAD linked to the host's /etc/hostname) and a backtrace and a
# core naming host files: `provenance resolve --sysroot ROOT --offline` run
# under strace must not open, stat or probe anything outside ROOT, the test's
# temp dir (input, cache), the shipped mappings and what the process itself
# needs (its libraries, locale, certificates, /proc/self, /dev). Ground truth
# is the kernel's view of every file call (strace -y shows what was opened).
. "$(dirname "$0")/lib.sh"
# the trace and ldd are of the ELF's own opens, not lib.sh's schema wrapper
PROVENANCE=$PROVENANCE_BIN

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
CHECK="$TOP/tests/e2e/hostile-strace-check.py"
FORBID="/etc/shadow /etc/passwd /etc/hostname"
export HOME="$T/home"
mkdir -p "$HOME" "$T/cwd"

# traced RUN-NAME CMD...: run CMD under strace in $T/cwd; the log is $T/RUN-NAME.strace
traced() {
	local name=$1; shift
	( cd "$T/cwd" && strace -f -y -qq -e trace=%file -o "$T/$name.strace" "$@" ) \
		>"$T/$name.out" 2>"$T/$name.err"
}

# ---- the checker can fail: a run that reads /etc/hostname is caught ----
traced control cat /etc/hostname
python3 "$CHECK" "$T/control.strace" "$T/root" "$T" "$TOP" "$PROVENANCE" $FORBID >"$T/control.check" &&
	fail "the strace checker did not notice a read of /etc/hostname"
grep -q 'BAD: .*/etc/hostname' "$T/control.check" || { cat "$T/control.check"; fail "checker control"; }

# ---- the hostile root ----
R="$T/root"
mkdir -p "$R/usr/lib/x86_64-linux-gnu" "$R/var/lib/dpkg/info" "$R/opt/proj/.git" "$R/opt/proj/lib" \
	"$R/usr/lib/python3/dist-packages/evil-1.0.dist-info" "$R/opt/conda/conda-meta" "$R/opt/rocm/.info"
ln -s /etc/shadow "$R/usr/lib/x86_64-linux-gnu/libevil.so"
ln -s ../../../../../../../../etc/passwd "$R/usr/lib/x86_64-linux-gnu/libdots.so"
ln -s /proc/self/root/etc/shadow "$R/usr/lib/x86_64-linux-gnu/libmagic.so"
printf 'Package: x\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0\n\n' >"$R/var/lib/dpkg/status"
printf '/.\n../../../../etc/passwd\n/usr/lib/x86_64-linux-gnu/libevil.so\n/etc/hostname\n' >"$R/var/lib/dpkg/info/x.list"
ln -s /etc/passwd "$R/var/lib/dpkg/diversions"
ln -s /etc/hostname "$R/opt/proj/.git/HEAD"
echo 'not an elf' >"$R/opt/proj/lib/libproj.so"
printf '../../../../../../etc/passwd,,\n/etc/shadow,,\n' >"$R/usr/lib/python3/dist-packages/evil-1.0.dist-info/RECORD"
printf 'Name: evil\nVersion: 1.0\n' >"$R/usr/lib/python3/dist-packages/evil-1.0.dist-info/METADATA"
ln -s /etc/hostname "$R/usr/lib/python3/dist-packages/evil-1.0.dist-info/direct_url.json"
ln -s /etc/passwd "$R/opt/conda/conda-meta/evil-1.0-0.json"
ln -s /etc/hostname "$R/opt/rocm/.info/version"

cat >"$T/bt.txt" <<'BT'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001000 in evil () from /usr/lib/x86_64-linux-gnu/libevil.so
#1  0x00007f0000002000 in dots () from /usr/lib/x86_64-linux-gnu/libdots.so
#2  0x00007f0000003000 in magic () from /usr/lib/x86_64-linux-gnu/libmagic.so
#3  0x00007f0000004000 in up () from ../../../../etc/passwd
#4  0x00007f0000005000 in proj () at /etc/shadow:3 from /opt/proj/lib/libproj.so
#5  0x00007f0000006000 in rocm () from /opt/rocm/lib/libamdhip64.so
#6  0x00007f0000007000 in conda () from /opt/conda/lib/libz.so.1
#7  0x00007f0000008000 in main () from /etc/hostname
BT

run_checked() {	# NAME INPUT
	local name=$1 input=$2 rc
	traced "$name" "$PROVENANCE" resolve --sysroot "$R" --offline --cache "$T/cache" \
		--format json "$input"
	rc=$?	# strace exits as the traced program did (128+N after a signal)
	[ "$rc" -le 1 ] || { cat "$T/$name.err"; fail "$name: resolve exited $rc"; }
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/$name.out" ||
		fail "$name: output is not JSON"
	python3 "$CHECK" "$T/$name.strace" "$R" "$T" "$TOP" "$PROVENANCE" $FORBID >"$T/$name.check" ||
		{ cat "$T/$name.check"; fail "$name: a file outside the sysroot was touched"; }
	note "$name: $(head -1 "$T/$name.check")"
	# nothing of the host's files made it into the report
	grep -q "$(head -c 20 /etc/hostname)" "$T/$name.out" && [ -s /etc/hostname ] &&
		fail "$name: the host's /etc/hostname leaked into the report"
	grep -q 'root:' "$T/$name.out" && fail "$name: /etc/passwd leaked into the report"
	# every warning says something (a link out of the root once gave "conda: ")
	grep -E 'warning: [a-z-]+: *$' "$T/$name.err" && fail "$name: a warning without a message"
	return 0
}

# ---- a pasted backtrace ----
run_checked text "$T/bt.txt"
# the dpkg .list named libevil.so: the owner is x, found in the root's database
owner=$(json_get "$T/text.out" "[m['package'] and m['package']['name'] for m in d['modules'] if m['path'].endswith('libevil.so')][0]")
note "libevil.so owner: $owner"

# ---- a core whose NT_FILE names host files ----
mkdir -p "$T/bin"
can_dump_core
build_fixture "$TOP/fixtures/crashers/libnull.c" "$T/bin/libnull.so" -fPIC -shared
build_fixture "$TOP/fixtures/crashers/nullmain.c" "$T/bin/nullmain" "$T/bin/libnull.so" -Wl,-rpath,"$T/bin"
core=$(make_core "$T/bin" ./nullmain) || exit $?
# patch the NT_FILE strings in place, same length: libnull.so's path becomes
# /etc/////shadow, the executable's a "/../../" chain to /etc/passwd
python3 - "$core" "$T/bin/libnull.so" "$T/bin/nullmain" "$T/hostile.core" <<'PY' || fail "cannot patch the core"
import struct, sys
core, lib, exe, outp = sys.argv[1:5]
d = bytearray(open(core, 'rb').read())
def same_len(target, n, filler='/'):
    if len(target) > n:
        sys.exit('path too short to patch: %d < %d' % (n, len(target)))
    head, tail = target.split('/', 1) if target.startswith('/') else ('', target)
    return ('/' + filler * (n - len(target)) + tail).encode()
def chain(n):
    s = '/' + '../' * ((n - len('/etc/passwd')) // 3)
    s = s + 'etc/passwd'
    return ('/' * (n - len(s)) + s).encode()
phoff, = struct.unpack_from('<Q', d, 0x20)
phentsize, phnum = struct.unpack_from('<HH', d, 0x36)
patched = 0
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from('<IIQQQQQQ', d, phoff + i * phentsize)
    if t != 4:
        continue
    pos = off
    while pos + 12 <= off + fs:
        namesz, descsz, ntype = struct.unpack_from('<III', d, pos)
        desc = pos + 12 + ((namesz + 3) & ~3)
        if ntype == 0x46494c45:
            count, = struct.unpack_from('<Q', d, desc)
            strs = desc + 16 + count * 24
            for old, new in ((lib, lambda n: same_len('/etc/shadow', n)), (exe, chain)):
                ob = old.encode() + b'\0'
                j = d.find(ob, strs, desc + descsz)
                while j >= 0:
                    d[j:j + len(ob) - 1] = new(len(ob) - 1)
                    patched += 1
                    j = d.find(ob, j + 1, desc + descsz)
        pos = desc + ((descsz + 3) & ~3)
if patched < 2:
    sys.exit('NT_FILE did not name %s and %s' % (lib, exe))
open(outp, 'wb').write(d)
PY
eu-readelf -n "$T/hostile.core" 2>/dev/null | grep -q '/etc/*shadow' || fail "the patched core's NT_FILE does not name /etc/shadow (eu-readelf)"
run_checked core "$T/hostile.core"
# the module is reported as the core named it, and no package was made up for it
check_eq "$(json_get "$T/core.out" "[m['package'] for m in d['modules'] if m['path'].endswith('shadow')][0]")" null "package of the /etc/shadow module"
exit 0
