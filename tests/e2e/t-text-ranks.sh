#!/usr/bin/env bash
# One crash per rank (issue 33): a job log of hundreds of ranks whose lines
# are interleaved as they reach a shared stderr, behind srun --label,
# torchrun, both, kubectl's RFC 3339 times or journald's short prefix, with
# NCCL noise lines and the launchers' own summary lines, gives one crash per
# rank, labelled, in rank order; each reads exactly as that rank's own
# unprefixed text alone (frames, threads, crashed thread, crash_frame,
# signal, headline). The truth is what gen-ranks.py wrote for each rank
# (--truth DIR) and the kinds it was told to make, never the tool's output:
# the determinism line's groups are the generator's groups of ranks made to
# fail the same way, and srun's "task N: Segmentation fault" line annotates
# the rank the generator made segfault. Then the launcher fixtures of
# fixtures/text-ranks/ (torchrun, srun+torchrun, kubectl, journald, OpenMPI's
# [host:pid] and --tag-output): one crash per file of truth/, labelled as
# its name, each read exactly as that file (the rank's unprefixed text).
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
[ -f "$TOP/libprovenance.a" ] || skip "libprovenance.a is not built"
command -v python3 >/dev/null || skip "python3 is not installed"
san=${SANITIZE:+-fsanitize=$SANITIZE -fno-omit-frame-pointer}
# shellcheck disable=SC2086 # $san and pkg-config output are word lists
${CC:-cc} -std=gnu11 -g -D_GNU_SOURCE $san $PROV_INC -o "$T/dump" "$TOP/tests/e2e/text-dump-tool.c" \
	"$TOP/libprovenance.a" $(pkg-config --libs libdw libelf libgit2 libarchive sqlite3 libcurl libdebuginfod capstone 2>/dev/null) \
	-lasm -lpthread -lstdc++ || fail "cannot build the text dump driver"
# the driver is test scaffolding that exits without freeing (see t-text-prefixes.sh)
dump() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$T/dump" "$@"; }

ranks=200
odd=3,4,150 cuda=7,100,199 segv=11,12
gen=(python3 "$TOP/tests/e2e/gen-ranks.py" --ranks "$ranks" --odd "$odd" --cuda "$cuda" --segv "$segv" --noise 2 --summary)

# the truth of every rank: its own text, alone, unprefixed
"${gen[@]}" --prefix none --truth "$T/truth" >/dev/null || fail "gen-ranks.py failed"
for r in $(seq 0 $((ranks - 1))); do
	dump "$T/truth/$r.txt" >"$T/truth/$r.dump" 2>&1 || fail "rank $r's own text does not parse"
done

for pre in torchrun srun srun-torchrun rfc3339 journald; do
	"${gen[@]}" --prefix "$pre" >"$T/$pre.log" || fail "gen-ranks.py --prefix $pre failed"
	rm -rf "$T/got" && mkdir "$T/got"
	dump "$T/$pre.log" >"$T/got.all" 2>&1 || fail "$pre: the log does not parse: $(head -1 "$T/got.all")"
	# one file per crash, named by its label; the label order kept aside
	awk -v dir="$T/got" '/^crash [0-9]+ label /{ f = dir "/" $4; print $4 >> (dir "/order"); next } { print > f }' "$T/got.all"
	want=rank
	[ "$pre" = srun ] && want=
	seq 0 $((ranks - 1)) | sed "s/^/$want/" >"$T/want.order"
	diff -q "$T/want.order" "$T/got/order" >/dev/null ||
		fail "$pre: the crashes are not one per rank in rank order: $(diff "$T/want.order" "$T/got/order" | head -4 | tr '\n' ' ')"
	bad=0
	for r in $(seq 0 $((ranks - 1))); do
		if ! diff -u "$T/truth/$r.dump" "$T/got/$want$r" >"$T/diff"; then
			[ $bad -lt 3 ] && { note "$pre: rank $r reads differently from its own text:"; sed -n '3,12p' "$T/diff" | sed 's/^/#   /'; }
			bad=$((bad + 1))
		fi
	done
	[ $bad -eq 0 ] || fail "$pre: $bad of $ranks ranks read differently from their own text"
	echo "ok: $pre: $(wc -l <"$T/$pre.log") lines, $ranks crashes, each as its rank's own text"
done

# the determinism line groups the ranks as the generator made them fail
"$PROVENANCE" resolve "$T/srun-torchrun.log" --offline >"$T/r.txt" 2>"$T/r.err"
rc=$?
[ $rc -le 1 ] || { head -5 "$T/r.err"; fail "resolve of the srun+torchrun log exits $rc"; }
line=$(grep -m1 '^determinism:' "$T/r.txt")
[ -n "$line" ] || fail "no determinism line in the report"
python3 - "$line" "$T/truth/kinds.txt" <<'EOF' || fail "the determinism line's groups are not the generator's"
import re, sys
line, kinds = sys.argv[1], sys.argv[2]
want = {}
for l in open(kinds):
    r, kind = l.split()[:2]
    want.setdefault(kind, set()).add(int(r))
want = sorted(sorted(g) for g in want.values())
def ranks(s):
    out = set()
    for part in re.split(r", | and ", s.strip()):
        a, _, b = part.partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out
body = line.split(":", 2)[2]
groups = [ranks(m.group(1)) for m in re.finditer(r"ranks? ([0-9][0-9, and-]*?)(?=:| share)", body)]
got = sorted(sorted(g) for g in groups)
if got != want:
    print("want", [g[:6] for g in want]); print("got ", [g[:6] for g in got]); sys.exit(1)
print("ok: determinism line groups = generator's %d groups" % len(want))
EOF

# srun's summary lines annotate the rank they name: the generator's segv ranks
# get SIGSEGV and their host, the others exit code 1
"$PROVENANCE" resolve "$T/srun.log" --offline --format json >"$T/s.json" 2>"$T/s.err"
[ $? -le 1 ] || { head -5 "$T/s.err"; fail "resolve --format json of the srun log failed"; }
python3 - "$T/s.json" "$T/truth/kinds.txt" <<'EOF' || fail "srun's lines do not annotate the right ranks"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {l.split()[0]: l.split() for l in open(sys.argv[2])}
assert len(d) == len(kinds), (len(d), len(kinds))
for rep in d:
    lab = rep["input"]["label"]; ln = rep["input"].get("launcher") or {}
    _, kind, host, task = kinds[lab]
    if ln.get("host") != host:
        sys.exit("rank %s: host %r, the generator put it on %s" % (lab, ln.get("host"), host))
    want_sig = "SIGSEGV" if kind == "segv" else None
    if ln.get("signal") != want_sig:
        sys.exit("rank %s (%s): launcher signal %r" % (lab, kind, ln.get("signal")))
print("ok: %d ranks annotated with the host and signal the generator gave them" % len(d))
EOF

# ---- the launcher fixtures: one crash per truth/ file, each as that file ----
for d in "$TOP"/fixtures/text-ranks/*/; do
	name=$(basename "$d")
	rm -rf "$T/fx" && mkdir "$T/fx"
	dump "$d/log.txt" >"$T/fx.all" 2>&1 || fail "$name: the log does not parse: $(head -1 "$T/fx.all")"
	awk -v dir="$T/fx" '/^crash [0-9]+ label /{ f = dir "/" $4; print $4 >> (dir "/order"); next } { print > f }' "$T/fx.all"
	(cd "$d/truth" && ls) | sed 's/\.txt$//' | sort >"$T/fx.want"
	sort "$T/fx/order" >"$T/fx.got"
	diff -q "$T/fx.want" "$T/fx.got" >/dev/null ||
		fail "$name: labels $(tr '\n' ' ' <"$T/fx.got"), truth/ has $(tr '\n' ' ' <"$T/fx.want")"
	while read -r lab; do
		dump "$d/truth/$lab.txt" >"$T/fx.truth" 2>&1 || fail "$name: truth/$lab.txt does not parse"
		diff -u "$T/fx.truth" "$T/fx/$lab" >"$T/diff" ||
			{ sed -n '3,14p' "$T/diff"; fail "$name: $lab reads differently from its own text"; }
	done <"$T/fx.want"
	echo "ok: $name: $(wc -l <"$T/fx.want") crashes, each as its rank's own text"
done
exit 0
