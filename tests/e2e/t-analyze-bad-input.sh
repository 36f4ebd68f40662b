#!/usr/bin/env bash
# Bad input: missing, empty, a directory, random bytes, an ELF executable,
# a real core cut inside the ELF header, the program headers, the notes and
# the memory segments. Each ends in time, never by a signal; the unusable
# ones exit 2 with one line on stderr naming the file.
. "$(dirname "$0")/lib.sh"
can_dump_core
F=$TOP/fixtures/crashers

# expect_bad FILE WHAT: exit 2, exactly one stderr line, naming FILE
expect_bad() {
	local f=$1 what=$2 rc
	timeout 120 "$PROVENANCE" analyze "$f" --format json >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -lt 124 ] || fail "$what: exit $rc (timeout or signal)"
	[ $rc -eq 2 ] || { cat "$T/err"; fail "$what: exit $rc, expected 2"; }
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "$what: stderr is not one line"; }
	grep -qF "$f" "$T/err" || { cat "$T/err"; fail "$what: message does not name '$f'"; }
	[ ! -s "$T/out" ] || fail "$what: printed a report"
	echo "ok: $what: $(cat "$T/err")"
}

expect_bad "$T/no-such-core" "missing file"
: >"$T/empty"
expect_bad "$T/empty" "empty file"
mkdir "$T/adir"
expect_bad "$T/adir" "directory"
head -c 65536 /dev/urandom >"$T/random"
expect_bad "$T/random" "random bytes"
build_fixture "$F/abort.c" "$T/abort"
expect_bad "$T/abort" "ELF executable (not a core)"
printf '\177ELF' >"$T/magic-only"
expect_bad "$T/magic-only" "ELF magic only"

core=$(make_core "$T" ./abort) || exit 1
size=$(stat -c %s "$core")
# where the notes and the first memory segment are, from the ELF itself
read -r note_off note_size load_off <<<"$(python3 - "$core" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(1 << 20)
phoff, = struct.unpack_from("<Q", d, 0x20)
phentsize, phnum = struct.unpack_from("<HH", d, 0x36)
note = load = None
for i in range(phnum):
    t, fl, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
    if t == 4 and note is None:
        note = (off, fsz)
    if t == 1 and fsz and load is None:
        load = off
print(note[0], note[1], load)
PY
)"
note "core: $size bytes, notes at $note_off+$note_size, first memory at $load_off"
[ -n "$load_off" ] || fail "cannot find the core's segments"
for cut in 1 20 63 100 $((note_off - 1)) $((note_off + 100)) $((note_off + note_size / 2)) $((note_off + note_size - 1)); do
	head -c "$cut" "$core" >"$T/cut-$cut"
	expect_bad "$T/cut-$cut" "core cut at $cut bytes (header, program headers, notes)"
	[ "$cut" -lt 4 ] || grep -q truncated "$T/err" || fail "cut at $cut: message does not say truncated"
done
# inside the memory segments: partial results are allowed, a crash or a hang is not
for cut in $((load_off + 4096)) $(((load_off + size) / 2)) $((size - 4096)); do
	head -c "$cut" "$core" >"$T/cut-$cut"
	timeout 120 "$PROVENANCE" analyze "$T/cut-$cut" --format json >"$T/out" 2>"$T/err"
	rc=$?
	case $rc in
	1) python3 "$TOP/tests/e2e/check-json-contract.py" "$T/out" || fail "cut at $cut: broken JSON"
	   grep -qF "$T/cut-$cut" "$T/err" || fail "cut at $cut: no warning naming the file"
	   check_eq "$(json_get "$T/out" 'd["input"]["partial"]')" true "cut at $cut: input.partial"
	   echo "ok: core cut at $cut (memory): partial report (exit 1), warning: $(head -1 "$T/err")" ;;
	2) [ "$(wc -l <"$T/err")" -eq 1 ] || fail "cut at $cut: stderr is not one line"
	   echo "ok: core cut at $cut (memory): exit 2: $(cat "$T/err")" ;;
	*) cat "$T/err"; fail "core cut at $cut (memory): exit $rc" ;;
	esac
done

# a usage error is 64, not 2
check_exit 64 "no core given" -- "$PROVENANCE" analyze
check_exit 64 "unknown option" -- "$PROVENANCE" analyze --bogus "$core"
check_exit 64 "bad format" -- "$PROVENANCE" analyze --format yaml "$core"
check_exit 0 "--help" -- "$PROVENANCE" analyze --help
