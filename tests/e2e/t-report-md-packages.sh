#!/usr/bin/env bash
# The Markdown environment table names every package of the crash's frames
# exactly once. The bug: a package with two modules lost its row when the
# module listed first was in no frame (counted as an earlier, unprinted
# duplicate) — numpy vanished from its own crash's table. Two pip modules of
# one distribution made here (RECORD lists both); one core crashes in each,
# so one of them has the other module listed first. Ground truth: the
# distribution's METADATA and the JSON report's own module/frame lists.
. "$(dirname "$0")/lib.sh"
can_dump_core
[ -x "$PROVENANCE" ] || skip "provenance is not built"
cd "$T"
sp=$T/venv/lib/python3.11/site-packages
mkdir -p "$sp/numpyx/core" "$sp/numpyx-1.26.4.dist-info"
echo 'int a_work(volatile int *p) { return p ? *p : 0; }' >a.c
echo 'int b_work(volatile int *p) { return *p; }' >b.c
${CC:-cc} -g -shared -fPIC -o "$sp/numpyx/core/_a.so" a.c || fail "cc a"
${CC:-cc} -g -shared -fPIC -o "$sp/numpyx/core/_b.so" b.c || fail "cc b"
printf 'Metadata-Version: 2.1\nName: numpyx\nVersion: 1.26.4\n' >"$sp/numpyx-1.26.4.dist-info/METADATA"
printf 'numpyx/core/_a.so,,\nnumpyx/core/_b.so,,\nnumpyx-1.26.4.dist-info/METADATA,,\nnumpyx-1.26.4.dist-info/RECORD,,\n' \
	>"$sp/numpyx-1.26.4.dist-info/RECORD"
cat >main.c <<'C'
#include <string.h>
int a_work(volatile int *p);
int b_work(volatile int *p);
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "a"))
		return a_work((volatile int *)0 + 1);	/* crashes in _a.so */
	return b_work((volatile int *)0);	/* crashes in _b.so */
}
C
build_fixture main.c "$T/main" "$sp/numpyx/core/_a.so" "$sp/numpyx/core/_b.so" -Wl,-rpath,"$sp/numpyx/core"
want_ver=$(sed -n 's/^Version: //p' "$sp/numpyx-1.26.4.dist-info/METADATA")
reproduced=0
for which in a b; do
	mkdir -p "$T/$which"
	core=$(make_core "$T/$which" "$T/main" "$which")
	"$PROVENANCE" resolve "$core" --offline --no-suspects --format json >"$T/$which.json" 2>/dev/null
	"$PROVENANCE" resolve "$core" --offline --no-suspects --format markdown >"$T/$which.md" 2>/dev/null
	check_eq "$(json_get "$T/$which.json" "[m['package']['name'] for m in d['modules'] if m['path'].endswith('/_$which.so')][0]")" numpyx "core $which: pip package"
	# the bug's precondition: a module of the package in no frame listed before the crashed one
	first=$(json_get "$T/$which.json" "[m['path'] for m in d['modules'] if m['package'] and m['package']['name']=='numpyx'][0]")
	case "$first" in */_$which.so) ;; *) reproduced=1 ;; esac
	rows=$(grep -c '^| numpyx (pip) | '"$want_ver"' |' "$T/$which.md")
	check_eq "$rows" 1 "core $which: numpyx $want_ver in the Markdown table exactly once"
done
[ $reproduced = 1 ] || note "neither core listed the frameless module first: the old bug's order did not occur here"
echo "ok: every package of the frames in the table once"
