#!/usr/bin/env bash
# Prefixes, once, for every format (issue 33): each fixtures/text file read
# with a launcher's or a logger's prefix before every line gives the same
# crash as the file alone: frames (index, pc, function, module, file, line,
# python), threads, the crashed thread, crash_frame, signal and headline. The
# prefixes are the documented ones: srun --label ("3: "), torchrun
# ("[rank3]: "), both ("0: [rank0]: "), kubectl/docker --timestamps (RFC
# 3339) and journald's short output ("Mon DD HH:MM:SS host ident[pid]: ").
# The truth is the unprefixed file, not a stored output. Parse-only (a small
# driver on libprovenance.a: ~300 runs), then `resolve --format json` on a
# few to see input.label in the report.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
[ -f "$TOP/libprovenance.a" ] || skip "libprovenance.a is not built"
san=${SANITIZE:+-fsanitize=$SANITIZE -fno-omit-frame-pointer}
# shellcheck disable=SC2086 # $san and pkg-config output are word lists
${CC:-cc} -std=gnu11 -g -D_GNU_SOURCE $san $PROV_INC -o "$T/dump" "$TOP/tests/e2e/text-dump-tool.c" \
	"$TOP/libprovenance.a" $(pkg-config --libs libdw libelf libgit2 libarchive sqlite3 libcurl libdebuginfod capstone 2>/dev/null) \
	-lasm -lpthread -lstdc++ || fail "cannot build the text dump driver"
# the driver is test scaffolding that exits without freeing: its leaks are
# not the product's (the resolve runs below are checked with leaks on)
dump() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$T/dump" "$@"; }

prefixes=("3: " "[rank3]: " "0: [rank0]: " "2024-05-01T12:00:00.123456789Z " "Apr 14 21:02:39 node17 python3[4242]: ")
n=0 bad=0
for txt in "$TOP"/fixtures/text/*/*.txt; do
	case "$txt" in */none/* | */regress/*) continue ;; esac
	base=${txt#"$TOP/fixtures/text/"}
	dump "$txt" >"$T/plain" 2>&1
	for pre in "${prefixes[@]}"; do
		n=$((n + 1))
		PRE="$pre" perl -pe 's/^/$ENV{PRE}/' "$txt" >"$T/p.txt"
		# the one crash of a one-label file says its label: not a difference
		dump "$T/p.txt" labelled 2>&1 | grep -v '^crash 0 label ' >"$T/pref"
		if ! diff -u "$T/plain" "$T/pref" >"$T/diff"; then
			note "$base behind '$pre':"
			sed -n '3,14p' "$T/diff" | sed 's/^/#   /'
			bad=$((bad + 1))
		fi
	done
done
note "$n prefixed files, $bad read differently"
[ "$bad" -eq 0 ] || fail "$bad prefixed fixture(s) read differently from the plain file"

# the report: one crash, its label as printed
PRE="0: [rank0]: " perl -pe 's/^/$ENV{PRE}/' "$TOP/fixtures/text/gdb/received-signal.txt" >"$T/g.txt"
"$PROVENANCE" resolve "$T/g.txt" --format json --offline >"$T/g.json" 2>"$T/err"
[ $? -le 1 ] || { cat "$T/err"; fail "resolve of a prefixed gdb paste failed"; }
check_eq "$(json_get "$T/g.json" 'd["input"]["label"]')" rank0 "input.label"
check_eq "$(json_get "$T/g.json" 'd["input"]["launcher"]["task"]')" 0 "srun's task beside the rank"
echo "ok: every fixture reads the same behind the five prefixes ($n files)"
