#!/usr/bin/env bash
# A kernel fault line (dmesg, journal) as input. A container cannot read the
# kernel's log reliably, so the lines are built here, in the kernel's own
# printk formats, from real crashes of a crasher: ip, sp and the fault
# address from its core (gdb), the mapping that holds ip from the core's
# file notes (gdb's `info proc mappings`). The formats followed:
#   arch/x86/mm/fault.c show_signal_msg():
#     "%s[%d]: segfault at %lx ip %px sp %px error %lx", then
#     print_vma_addr(" in ", ip) and " likely on CPU %d (core %d, socket %d)"
#   arch/x86/kernel/traps.c show_signal() (pr_fmt "traps: "):
#     "%s[%d] %s%s ip:%lx sp:%lx error:%lx", then print_vma_addr(" in ", ip)
#   mm/memory.c print_vma_addr(): "%s%s[%lx+%lx]" (name, vm_start, size) in
#     older kernels, "%s%pD[%lx,%lx+%lx]" (name, file offset of ip,
#     vm_start, size) in newer ones.
# The error code of a segfault is not in a core: the crasher writes through
# a NULL pointer from user mode to an unmapped page, which is x86's
# USER|WRITE = 6 (arch/x86/include/asm/trap_pf.h).
# The truth for the function and line: addr2line on the module at the
# faulting instruction's offset, and gdb's `info line *$pc` on the core.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v gdb >/dev/null || skip "gdb is not installed"
command -v addr2line >/dev/null || skip "addr2line is not installed"
can_dump_core

cat >"$T/store.c" <<'EOF'
int store_put(int *slot, int v)
{
	int *p = slot;

	*p = v; /* WRITE */
	return v + 1;
}

int store_ratio(int a, int b)
{
	return a / b; /* DIVIDE */
}
EOF
cat >"$T/indexer.c" <<'EOF'
int store_put(int *slot, int v);
int store_ratio(int a, int b);

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return store_ratio(argc, argc - 2);
	return store_put(argc > 5 ? &argc : 0, 42);
}
EOF
${CC:-cc} $CFLAGS_FIXTURE -fPIC -shared -o "$T/libstore.so.1" "$T/store.c" || fail "cannot build libstore"
build_fixture "$T/indexer.c" "$T/indexer" "$T/libstore.so.1" "-Wl,-rpath,$T"
line() { grep -n "/\* $1 \*/" "$T/store.c" | cut -d: -f1; }
mkdir -p "$T/root/usr/lib"
cp "$T/libstore.so.1" "$T/root/usr/lib/"

# facts CORE: "PID PC SP ADDR START END OFFSET LOADBASE" from gdb on the core
facts() {
	gdb -batch -q -ex 'info inferiors' -ex 'p/x $pc' -ex 'p/x $sp' \
		-ex 'p/x (unsigned long)$_siginfo._sifields._sigfault.si_addr' \
		-ex 'info proc mappings' "$T/indexer" "$1" 2>/dev/null | python3 -c '
import re, sys
pid = pc = sp = addr = None
maps = []
for l in sys.stdin:
    m = re.search(r"process (\d+)", l)
    if m and pid is None:
        pid = m.group(1)
    m = re.match(r"\$(\d) = (0x[0-9a-f]+)", l)
    if m:
        v = int(m.group(2), 16)
        if m.group(1) == "1": pc = v
        elif m.group(1) == "2": sp = v
        elif m.group(1) == "3": addr = v
    f = l.split()
    if len(f) == 5 and f[4].endswith("/libstore.so.1"):
        maps.append([int(x, 16) for x in f[:4]])
base = [m[0] for m in maps if m[3] == 0]
hold = [m for m in maps if m[0] <= pc < m[1]]
if pid and hold and base:
    print(pid, pc, sp, addr, hold[0][0], hold[0][1], hold[0][3], base[0])
'
}

core=$(make_core "$T" ./indexer)
read -r pid pc sp addr start end off base <<<"$(facts "$core")"
[ -n "$start" ] && [ -n "$base" ] || fail "no mapping of libstore.so.1 holds pc $pc in the core"
note "write: pid $pid pc $pc sp $sp addr $addr mapping $start-$end offset $off base $base"
rel=$(printf '0x%x' $((pc - base)))
want_fn=$(addr2line -f -e "$T/libstore.so.1" "$rel" | sed -n 1p)
want_line=$(addr2line -e "$T/libstore.so.1" "$rel" | sed 's/.*://; s/ .*//')
check_eq "$want_line" "$(line WRITE)" "addr2line agrees with the source marker"
gdb_line=$(gdb -batch -q -ex 'info line *$pc' "$T/indexer" "$core" 2>/dev/null | sed -n 's/^Line \([0-9]*\) of .*/\1/p' | tail -1)
check_eq "$gdb_line" "$want_line" "gdb's line of the faulting instruction"

size=$((end - start))
fileoff=$((pc - start + off))
# older kernels: "NAME[START+SIZE]", dmesg's timestamp in front
printf '[ 8123.456789] indexer[%d]: segfault at %x ip %016x sp %016x error 6 in libstore.so.1[%x+%x]\n' \
	"$pid" "$addr" "$pc" "$sp" "$start" "$size" >"$T/old.txt"
# newer kernels: "NAME[OFF,START+SIZE]" and the CPU, as the journal shows it
printf 'Nov 24 09:58:01 buildhost kernel: indexer[%d]: segfault at %x ip %016x sp %016x error 6 in libstore.so.1[%x,%x+%x] likely on CPU 1 (core 1, socket 0)\n' \
	"$pid" "$addr" "$pc" "$sp" "$fileoff" "$start" "$size" >"$T/new.txt"

for form in old new; do
	"$PROVENANCE" resolve "$T/$form.txt" --sysroot "$T/root" --format json --offline >"$T/$form.json" 2>"$T/err"
	rc=$?
	[ $rc -le 1 ] || { cat "$T/err"; fail "$form: resolve exited $rc"; }
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/$form.json" ||
		fail "$form: JSON vs schema"
	j="$T/$form.json"
	f0="[t for t in d['threads'] if t['crashed']][0]['frames'][0]"
	check_eq "$(json_get "$j" 'd["input"]["format"]')" kernel "$form: format"
	check_eq "$(json_get "$j" 'd["signal"]["name"]')" SIGSEGV "$form: signal"
	check_eq "$(json_get "$j" 'd["signal"]["address"]')" "$(printf '0x%x' "$addr")" "$form: fault address"
	check_eq "$(json_get "$j" 'd["crash"]["thread"]')" "$pid" "$form: the printed pid is the thread's"
	check_eq "$(json_get "$j" "$f0['pc']")" "$(printf '0x%x' "$pc")" "$form: ip"
	check_eq "$(json_get "$j" "$f0['function']")" "$want_fn" "$form: function (addr2line)"
	check_eq "$(json_get "$j" "$f0['line']")" "$want_line" "$form: line (addr2line)"
	check_eq "$(json_get "$j" "$f0['location_guess']")" true "$form: marked a guess"
	check_eq "$(json_get "$j" "$f0['module']")" /usr/lib/libstore.so.1 "$form: module found in the sysroot"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["module"]')" libstore.so.1 "$form: module as printed"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["base"]')" "$(printf '0x%x' "$start")" "$form: mapping start"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["file_offset"]')" "$(printf '0x%x' "$fileoff")" "$form: file offset"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["error_bits"]["user"]')" true "$form: user-mode"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["error_bits"]["write"]')" true "$form: write"
	check_eq "$(json_get "$j" 'd["crash"]["kernel_line"]["error_bits"]["protection"]')" false "$form: page not present"
	check_match "$(json_get "$j" 'd["crash"]["kernel_line"]["note"]')" "no build ID" "$form: says the build ID is not checked"
done
check_eq "$(json_get "$T/new.json" 'd["crash"]["kernel_line"]["cpu"]')" 1 "CPU of the newer form"

# text and Markdown say it too
"$PROVENANCE" resolve "$T/new.txt" --sysroot "$T/root" --offline >"$T/new.out" 2>/dev/null
grep -q 'error 6: user-mode write, page not present' "$T/new.out" || fail "text: error bits: $(cat "$T/new.out")"
grep -q "$want_fn.*:$want_line.*a guess" "$T/new.out" || fail "text: frame: $(cat "$T/new.out")"
"$PROVENANCE" resolve "$T/new.txt" --sysroot "$T/root" --offline --format markdown >"$T/new.md" 2>/dev/null
grep -q '^\*\*Kernel line:\*\* segfault in libstore.so.1' "$T/new.md" || fail "markdown: kernel line: $(cat "$T/new.md")"

# not on this host and no --sysroot: read, but no function; the note says why
"$PROVENANCE" resolve "$T/old.txt" --format json --offline >"$T/nosys.json" 2>/dev/null
check_eq "$(json_get "$T/nosys.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['function']")" null "no file: no function"
check_match "$(json_get "$T/nosys.json" 'd["crash"]["kernel_line"]["note"]')" "no file named 'libstore.so.1'" "no file: the note"

# a trap: divide by zero in the same library ("traps: NAME[PID] trap divide error ip:… sp:… error:0 in …")
core=$(make_core "$T" ./indexer x)
read -r pid pc sp addr start end off base <<<"$(facts "$core")"
[ -n "$start" ] || fail "divide: no mapping holds pc $pc"
printf '[ 8200.000001] traps: indexer[%d] trap divide error ip:%x sp:%x error:0 in libstore.so.1[%x+%x]\n' \
	"$pid" "$pc" "$sp" "$start" "$((end - start))" >"$T/trap.txt"
rel=$(printf '0x%x' $((pc - base)))
"$PROVENANCE" resolve "$T/trap.txt" --sysroot "$T/root" --format json --offline >"$T/trap.json" 2>"$T/err" ||
	[ $? -le 1 ] || { cat "$T/err"; fail "trap: resolve failed"; }
check_eq "$(json_get "$T/trap.json" 'd["signal"]["name"]')" SIGFPE "trap: signal"
check_eq "$(json_get "$T/trap.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['function']")" \
	"$(addr2line -f -e "$T/libstore.so.1" "$rel" | sed -n 1p)" "trap: function (addr2line)"
check_eq "$(json_get "$T/trap.json" "[t for t in d['threads'] if t['crashed']][0]['frames'][0]['line']")" \
	"$(line DIVIDE)" "trap: line"
check_eq "$(json_get "$T/trap.json" 'd["crash"]["kernel_line"]["kind"]')" "trap divide error" "trap: kind"
echo "ok: kernel fault lines read and looked up"
