#!/usr/bin/env bash
# A kernel fault line (dmesg) for a library outside the default library
# directories, found with --sysroot through the root's loader configuration:
# /etc/ld.so.conf includes /etc/ld.so.conf.d/*.conf, whose x.conf names
# /opt/x/lib, where the library is (issue 34 item 4); and a library under
# /opt/rocm-VERSION/lib, which no configuration names.
# The kernel line is made here from a real crash of the fixture: ip, sp and
# the fault address from its core (gdb), the mapping that holds ip from
# gdb's `info proc mappings` (format: arch/x86/mm/fault.c show_signal_msg,
# mm/memory.c print_vma_addr, older kernels' "NAME[START+SIZE]").
# Truth: the package from dpkg-query on the root's database, the build ID
# from eu-readelf -n, the function from addr2line and the source marker.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v gdb >/dev/null || skip "gdb is not installed"
command -v addr2line >/dev/null || skip "addr2line is not installed"
command -v eu-readelf >/dev/null || skip "eu-readelf is not installed"
command -v dpkg-query >/dev/null || skip "dpkg-query is not installed"
can_dump_core

cat >"$T/xput.c" <<'C'
int x_put(int *slot, int v)
{
	*slot = v; /* WRITE */
	return v + 1;
}
C
cat >"$T/main.c" <<'C'
int x_put(int *slot, int v);

int main(int argc, char **argv)
{
	(void)argv;
	return x_put(argc > 5 ? &argc : 0, 42);
}
C
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -Wl,--build-id -o "$T/libxput.so.3" "$T/xput.c" || fail "cannot build libxput"
build_fixture "$T/main.c" "$T/xmain" "$T/libxput.so.3" "-Wl,-rpath,$T"

core=$(make_core "$T" ./xmain)
read -r pid pc sp addr start end <<<"$(gdb -batch -q -ex 'info inferiors' -ex 'p/x $pc' -ex 'p/x $sp' \
	-ex 'p/x (unsigned long)$_siginfo._sifields._sigfault.si_addr' -ex 'info proc mappings' \
	"$T/xmain" "$core" 2>/dev/null | python3 -c '
import re, sys
pid = None; v = {}; maps = []
for l in sys.stdin:
    m = re.search(r"process (\d+)", l)
    if m and pid is None: pid = m.group(1)
    m = re.match(r"\$(\d) = (0x[0-9a-f]+)", l)
    if m: v[m.group(1)] = int(m.group(2), 16)
    f = l.split()
    if len(f) == 5 and f[4].endswith("/libxput.so.3"):
        maps.append([int(x, 16) for x in f[:2]])
hold = [m for m in maps if m[0] <= v.get("1", -1) < m[1]]
if pid and hold: print(pid, v["1"], v["2"], v["3"], hold[0][0], hold[0][1])
')"
[ -n "$start" ] || fail "gdb: no mapping of libxput.so.3 holds pc in the core"
printf '[ 4711.000042] xmain[%d]: segfault at %x ip %016x sp %016x error 6 in libxput.so.3[%x+%x]\n' \
	"$pid" "$addr" "$pc" "$sp" "$start" "$((end - start))" >"$T/kern.txt"
want_line=$(grep -n '/\* WRITE \*/' "$T/xput.c" | cut -d: -f1)
want_bid=$(eu-readelf -n "$T/libxput.so.3" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$want_bid" ] || fail "eu-readelf: no build ID in libxput.so.3"

pkgent() {	# NAME VERSION
	printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nSection: misc\nMaintainer: T <t@example.invalid>\nArchitecture: amd64\nVersion: %s\nDescription: test\n test\n\n' "$1" "$2"
}
# root: R/etc/ld.so.conf -> ld.so.conf.d/*.conf -> x.conf names /opt/x/lib
mkroot() {	# ROOT LIBDIR
	mkdir -p "$1/var/lib/dpkg/info" "$1$2" "$1/etc/ld.so.conf.d"
	cp "$T/libxput.so.3" "$1$2/"
	pkgent libxput3 3.1.4-1 >"$1/var/lib/dpkg/status"
	printf '%s\n%s/libxput.so.3\n' "$2" "$2" >"$1/var/lib/dpkg/info/libxput3.list"
}
R=$T/root
mkroot "$R" /opt/x/lib
printf '# the loader configuration\ninclude /etc/ld.so.conf.d/*.conf\n' >"$R/etc/ld.so.conf"
printf '# x\n/opt/x/lib\n' >"$R/etc/ld.so.conf.d/x.conf"
printf '/opt/nothing/lib\n' >"$R/etc/ld.so.conf.d/other.conf"
want_pkg=$(dpkg-query --admindir="$R/var/lib/dpkg" -S /opt/x/lib/libxput.so.3 | cut -d: -f1)
want_ver=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version}' "$want_pkg")
check_eq "$want_pkg" libxput3 "dpkg-query names the package in the root"

check_found() {	# ROOT PATH WHAT
	"$PROVENANCE" resolve "$T/kern.txt" --sysroot "$1" --format json --offline >"$T/out.json" 2>"$T/err"
	rc=$?
	[ $rc -le 1 ] || { cat "$T/err"; fail "$3: resolve exited $rc"; }
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/out.json" ||
		fail "$3: JSON vs schema"
	j=$T/out.json
	f0="[t for t in d['threads'] if t['crashed']][0]['frames'][0]"
	m="[m for m in d['modules'] if m['path'] == '$2'][0]"
	check_eq "$(json_get "$j" "$f0['module']")" "$2" "$3: the module's path in the root"
	check_eq "$(json_get "$j" "$f0['function']")" x_put "$3: function"
	check_eq "$(json_get "$j" "$f0['line']")" "$want_line" "$3: line (the source marker)"
	check_eq "$(json_get "$j" "$m['package']['name']")" "$want_pkg" "$3: package (dpkg-query)"
	check_eq "$(json_get "$j" "$m['package']['version']")" "$want_ver" "$3: version (dpkg-query)"
	check_eq "$(json_get "$j" "$m['build_id']")" "$want_bid" "$3: build ID (eu-readelf -n)"
	check_eq "$(json_get "$j" "$m.get('build_id_from')")" file "$3: the build ID is marked as the file's"
}
check_found "$R" /opt/x/lib/libxput.so.3 "ld.so.conf.d"

# without the include line, /opt/x/lib is nowhere in the search path
mv "$R/etc/ld.so.conf" "$R/etc/ld.so.conf.off"
"$PROVENANCE" resolve "$T/kern.txt" --sysroot "$R" --format json --offline >"$T/no.json" 2>/dev/null
check_eq "$(json_get "$T/no.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['function']")" null "no ld.so.conf: not found"
check_match "$(json_get "$T/no.json" 'd["crash"]["kernel_line"]["note"]')" "no file named 'libxput.so.3'" "no ld.so.conf: the note"

# a relative include and a nested one; a loop of includes ends (bounded)
printf 'include conf.d/*.conf\ninclude ld.so.conf\n' >"$R/etc/ld.so.conf"
mkdir -p "$R/etc/conf.d"
printf 'include /etc/ld.so.conf.d/x.conf\n' >"$R/etc/conf.d/a.conf"
check_found "$R" /opt/x/lib/libxput.so.3 "relative and nested include"

# an include that leaves the root through a symlink is read inside the root
ln -s /etc "$R/etc/hostetc"
printf 'include hostetc/ld.so.conf.d/x.conf\n' >"$R/etc/ld.so.conf"
check_found "$R" /opt/x/lib/libxput.so.3 "absolute symlink resolved inside the root"

# /opt/rocm-VERSION/lib: no configuration names it
R2=$T/rocm
mkroot "$R2" /opt/rocm-7.0.2/lib
check_found "$R2" /opt/rocm-7.0.2/lib/libxput.so.3 "/opt/rocm-*/lib"
echo "ok: kernel lines for libraries in ld.so.conf.d directories and /opt/rocm-*/lib"
