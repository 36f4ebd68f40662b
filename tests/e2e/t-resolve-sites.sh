#!/usr/bin/env bash
# Several inputs that share one signature but crashed in different functions
# (one bug reached at two places, as a data race or memory corruption does):
# the determinism line says so and suggests the runbook's suspicion; the
# same core twice does not. Truth from gdb: frame #0 differs, frame #1 is the
# same caller.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "no gdb"
mkdir -p "$T/a" "$T/b"
build_fixture "$TOP/fixtures/crashers/sitevary.c" "$T/a/prog" -fno-builtin
cp "$T/a/prog" "$T/b/prog"
ca=$(make_core "$T/a" ./prog strlen)
cb=$(make_core "$T/b" ./prog)

frame() { gdb -batch -nx -ex "frame $2" "$T/a/prog" "$1" 2>/dev/null | sed -n 's/^#[0-9]*  *\(0x[0-9a-f]* in \)\{0,1\}\([^ (]*\) .*/\2/p' | tail -1; }
fa=$(frame "$ca" 0) fb=$(frame "$cb" 0)
[ -n "$fa" ] && [ -n "$fb" ] || fail "gdb named no frame #0 ('$fa', '$fb')"
[ "$fa" != "$fb" ] || fail "truth: both crashed in $fa: the fixture did not reach two sites"
check_eq "$(frame "$ca" 1) $(frame "$cb" 1)" "use use" "truth: both reached from use()"
echo "ok: gdb: frame #0 $fa and $fb, both called from use()"

"$PROVENANCE" resolve "$ca" "$cb" --offline --format json >"$T/two.json" 2>/dev/null
check_match "$(json_get "$T/two.json" 'd[0]["determinism"]')" \
	"^deterministic: all 2 inputs share this crash signature, but their crash sites are in 2 different functions: suspect a data race or memory corruption$" \
	"one signature, two crash sites"
"$PROVENANCE" resolve "$ca" "$cb" --offline --format markdown >"$T/two.md" 2>/dev/null
grep -q '^\*\*Determinism:\*\* deterministic: all 2 inputs .* 2 different functions' "$T/two.md" ||
	fail "the Markdown's determinism line does not say the sites differ"

"$PROVENANCE" resolve "$ca" "$ca" --offline --format json >"$T/same.json" 2>/dev/null
check_eq "$(json_get "$T/same.json" 'd[0]["determinism"]')" "deterministic: all 2 inputs share this crash signature" \
	"the same core twice: one site"
