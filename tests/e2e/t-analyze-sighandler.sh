#!/usr/bin/env bash
# A crash caught by a signal handler that re-raises it (LLVM's tgkill, glog's
# abort(), c10's/Abseil's raise(), Python's faulthandler): the frame after
# "<signal handler called>" is the crash site: its registers, faulting
# instruction and fault address, each compared with gdb (frame N, info
# registers, x/i $pc, p EXPR); the handler frames are marked; and a live
# process (analyze --pid) stopped inside a handler.
. "$(dirname "$0")/lib.sh"
can_dump_core
for c in gdb python3 c++; do command -v $c >/dev/null || skip "$c not installed"; done
F=$TOP/fixtures/crashers
CHK="python3 $TOP/tests/e2e/sighandler-check.py"

build_fixture "$F/sighandler.c" "$T/sighandler"
c++ -g -O2 -fno-omit-frame-pointer -o "$T/sighandler-cxx" "$F/sighandler-cxx.cpp" ||
	fail "cannot build sighandler-cxx.cpp"

# case NAME EXE EXPR CMD...: make the core, analyze it, compare with gdb
case_core() {
	local name=$1 exe=$2 expr=$3; shift 3
	mkdir -p "$T/$name"
	local core
	core=$(make_core "$T/$name" "$@") || exit 1
	check_exit 0 "analyze $name" -- "$PROVENANCE" analyze "$core" --format json
	cp "$T/last.out" "$T/$name.json"
	python3 "$TOP/tests/e2e/check-json-contract.py" "$T/$name.json" --kind core || fail "$name: JSON contract"
	python3 "$TOP/tests/e2e/check-schema.py" "$TOP/docs/schema/report.schema.json" "$T/$name.json" || fail "$name: schema"
	$CHK "$T/$name.json" "$exe" "$core" "$expr" || fail "$name: crash site differs from gdb"
	check_exit 0 "analyze $name (text)" -- "$PROVENANCE" analyze "$core"
	grep -q '<signal handler called>' "$T/last.out" || fail "$name: text shows no <signal handler called>"
	grep -q '<- crash site' "$T/last.out" || fail "$name: text marks no crash site"
	CORE=$core
}

case_core llvm "$T/sighandler" slot "$T/sighandler" llvm
check_eq "$(json_get "$T/llvm.json" 'd["signal"]["name"], d["signal"]["code_name"]')" "('SIGSEGV', 'SEGV_MAPERR')" "llvm: the fault's signal"
check_eq "$(json_get "$T/llvm.json" 'd["signal"]["reraised"]["code_name"]')" SI_TKILL "llvm: re-raised with tgkill"
"$PROVENANCE" resolve "$CORE" --offline --format markdown >"$T/llvm.md" 2>/dev/null
check_match "$(grep -m1 '<signal handler called>' "$T/llvm.md")" '<signal handler called>' "llvm: markdown shows the signal frame"
check_match "$(grep -m1 '\*\*crash site\*\*' "$T/llvm.md")" 'read_slot' "llvm: markdown marks read_slot as the crash site"
# the evidence starts at the crash site, its pointer argument (gdb: p slot) first
slot=$(gdb -nx -batch -ex "frame 3" -ex "p slot" "$T/sighandler" "$CORE" 2>/dev/null | sed -n 's/^\$[0-9]* = ([^)]*) //p')
sed -n '/^### Evidence/,/^### [^E]/p' "$T/llvm.md" >"$T/ev.md"
check_match "$(grep -m1 '^Frame #' "$T/ev.md")" 'read_slot' "llvm: the first evidence frame"
check_match "$(grep -m1 '^- ' "$T/ev.md")" "arg \`slot\` .* = \`$slot\` — \*\*the faulting pointer\*\*" "llvm: slot (gdb: $slot) is the faulting pointer"
grep -q 'llvm_handler' "$T/ev.md" && fail "llvm: the evidence shows the handler's frame"
check_match "$(json_get "$T/llvm.json" '[p["evidence"] for p in d["crash"]["patterns"] if p["id"] == "data-race"]')" \
	"slot.*$slot.*not 8-byte aligned" "llvm: the misaligned pointer is a data-race red flag"

case_core glog "$T/sighandler" slot "$T/sighandler" glog
check_eq "$(json_get "$T/glog.json" 'd["signal"]["name"], d["signal"]["reraised"]["name"]')" "('SIGSEGV', 'SIGABRT')" "glog: fault SIGSEGV, died of abort()"
check_eq "$(json_get "$T/glog.json" '[p["id"] for p in d["crash"]["patterns"] if p["id"] == "abort"]')" "[]" "glog: the handler's abort is not the crash's pattern"

case_core cxx "$T/sighandler-cxx" 'this->data_' "$T/sighandler-cxx"

py=/usr/bin/python3.11
if [ -x "$py" ]; then
	case_core python "$py" 'up:ptr' "$py" -X faulthandler "$F/sighandler.py"
	# faulthandler's own dump (run again, no core) names the Python frames
	( ulimit -c 0; "$py" -X faulthandler "$F/sighandler.py" ) 2>"$T/fh.err" >/dev/null
	want=$(sed -n 's/^  File ".*", line [0-9]* in \(.*\)$/\1/p' "$T/fh.err" | tr '\n' ' ')
	[ -n "$want" ] || fail "python: faulthandler printed no frames: $(cat "$T/fh.err")"
	check_eq "$(json_get "$T/python.json" '" ".join(f["function"] for f in [t for t in d["threads"] if t["crashed"]][0]["frames"] if f["language"] == "python") + " "')" \
		"$want" "python: the Python frames under the crash (faulthandler's dump)"
else
	note "no $py: faulthandler case not run"
fi

# a live process inside a signal handler (analyze --pid): the signal frame and
# the handler's frames are marked; the frame after it is gdb's (gdb -p)
"$T/sighandler" live >"$T/live.out" 2>&1 &
PID=$!
trap 'kill -9 $PID 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 100); do grep -q ready "$T/live.out" && break; sleep 0.1; done
kill -USR1 $PID
for i in $(seq 100); do grep -q handler "$T/live.out" && break; sleep 0.1; done
grep -q handler "$T/live.out" || fail "live: the handler did not run"
check_exit 0 "analyze --pid (in a handler)" -- "$PROVENANCE" analyze --pid $PID --format json
cp "$T/last.out" "$T/live.json"
gdbf=$(gdb -nx -batch -ex "set width 0" -ex bt -p $PID 2>/dev/null |
	sed -n '/<signal handler called>/{n;s/^#[0-9]*  *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) .*/\2/p;}')
[ -n "$gdbf" ] || fail "live: gdb shows no <signal handler called>"
check_eq "$(json_get "$T/live.json" '(lambda f: f[[i for i, x in enumerate(f) if x.get("signal_frame")][0] + 1]["function"])(d["threads"][0]["frames"])')" \
	"$gdbf" "live: the frame after <signal handler called> (gdb -p)"
check_eq "$(json_get "$T/live.json" '(lambda f: all(x.get("in_signal_handler") for x in f[:[i for i, x in enumerate(f) if x.get("signal_frame")][0]]))(d["threads"][0]["frames"])')" \
	true "live: the handler's frames are marked"
kill -0 $PID || fail "live: the process died"
