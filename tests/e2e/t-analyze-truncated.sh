#!/usr/bin/env bash
# A real core (Debian's sleep, killed by SIGSEGV inside libc) cut at several
# points inside its memory segments, as `ulimit -c` or systemd-coredump's size
# limits leave them. Each cut: exit 1, "input.partial": true, a banner in the
# text report, every module eu-unstrip finds in the whole core listed with the
# same build ID (read from the file when the core lost it), frame #0 named as
# gdb names it on the whole core, a thread whose stack is gone says so, and no
# crash pattern is derived from the missing memory.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v eu-unstrip >/dev/null || skip "no eu-unstrip"
command -v gdb >/dev/null || skip "no gdb"
sleep_bin=$(command -v sleep)

rm -f "$T"/core*
( cd "$T" && ulimit -c unlimited && exec "$sleep_bin" 30 ) >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -SEGV "$pid"
wait "$pid" 2>/dev/null
core=$(ls -t "$T"/core* 2>/dev/null | head -1)
[ -n "$core" ] || fail "sleep left no core"
size=$(stat -c %s "$core")

# ground truth from the whole core: modules (eu-unstrip), frame #0 (gdb)
eu-unstrip -n --core "$core" | awk '$5 != "linux-vdso.so.1" && $6 != "[vdso]" {sub(/@.*/, "", $2); print $2}' | sort >"$T/ids.want"
[ -s "$T/ids.want" ] || fail "eu-unstrip lists no module"
gdb -batch -ex "set debuginfod enabled off" -ex bt "$sleep_bin" "$core" 2>/dev/null |
	awk '/^#0 /{f=$0} END{print f}' | sed -E 's/^#0 +(0x[0-9a-f]+ in )?//; s/ \(.*//' >"$T/f0.want"
f0=$(cat "$T/f0.want")
[ -n "$f0" ] || fail "gdb gives no frame #0"
note "core $size bytes; gdb frame #0: $f0; modules: $(wc -l <"$T/ids.want")"

read -r load_off stack_off <<<"$(python3 - "$core" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 0x20)
phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
# the crashed thread's rsp (first NT_PRSTATUS: pr_reg at 112, rsp is register 19)
loads, rsp = [], None
for i in range(phnum):
    t, fl, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
    if t == 1 and fsz:
        loads.append((off, va, fsz))
    if t == 4 and rsp is None:
        n = off
        while n < off + fsz:
            nsz, dsz, typ = struct.unpack_from("<III", d, n)
            desc = n + 12 + ((nsz + 3) & ~3)
            if typ == 1:
                rsp, = struct.unpack_from("<Q", d, desc + 112 + 19 * 8)
                break
            n = desc + ((dsz + 3) & ~3)
stack = [o for o, va, fsz in loads if va <= rsp < va + fsz][0]
print(loads[0][0], stack)
PY
)"
note "first memory at $load_off, the stack's segment at $stack_off"
for cut in $((load_off + 4096)) $((stack_off)) $((size - 4096)); do
	head -c "$cut" "$core" >"$T/cut"
	timeout 60 "$PROVENANCE" analyze "$T/cut" --format json >"$T/cut.json" 2>"$T/cut.err"
	rc=$?
	[ $rc = 1 ] || { cat "$T/cut.err"; fail "cut at $cut: exit $rc, expected 1"; }
	python3 "$TOP/tests/e2e/check-json-contract.py" "$T/cut.json" --kind core || fail "cut at $cut: JSON contract"
	check_eq "$(json_get "$T/cut.json" 'd["input"]["partial"]')" true "cut at $cut: input.partial"
	json_get "$T/cut.json" '"\n".join(sorted(m["build_id"] for m in d["modules"] if m["build_id"] and not m["path"].startswith("[")))' >"$T/ids.have"
	missing=$(comm -23 "$T/ids.want" "$T/ids.have")
	[ -z "$missing" ] || fail "cut at $cut: modules eu-unstrip finds are missing: $missing"
	echo "ok: cut at $cut: every module of eu-unstrip, same build IDs"
	check_eq "$(json_get "$T/cut.json" '",".join(p["id"] for p in d["crash"]["patterns"])')" "" "cut at $cut: no pattern"
	t='[t for t in d["threads"] if t["crashed"]][0]'
	check_eq "$(json_get "$T/cut.json" "$t[\"frames\"][0][\"function\"]")" "$f0" "cut at $cut: frame #0 (gdb on the whole core)"
	if [ "$cut" -le "$stack_off" ]; then
		check_match "$(json_get "$T/cut.json" "$t[\"unwind_error\"]")" "stack memory .* is missing" "cut at $cut: unwind_error"
	fi
	"$PROVENANCE" analyze "$T/cut" >"$T/cut.txt" 2>/dev/null
	grep -q "PARTIAL" "$T/cut.txt" || fail "cut at $cut: no banner in the text report"
	"$PROVENANCE" resolve --offline "$T/cut" --format markdown >"$T/cut.md" 2>/dev/null
	grep -q "Warning:.*PARTIAL" "$T/cut.md" || fail "cut at $cut: no banner in the Markdown report"
done
# the whole core is not partial
check_exit 0 "the whole core" -- "$PROVENANCE" analyze "$core" --format json
check_eq "$(json_get "$T/last.out" 'd["input"]["partial"]')" false "whole core: input.partial"
exit 0
