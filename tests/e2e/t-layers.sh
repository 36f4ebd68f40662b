#!/usr/bin/env bash
# The layers hold (docs/HACKING.md, "Layers"): header names are unique, no
# include cycle between files or folders, no folder includes a header of a
# layer above it or of a peer (order: the Makefile's LAYERS), the Makefile's
# INC_<layer> paths agree with that order, and comments and docs name only
# files of the repository, the layer tables of docs/HACKING.md and
# docs/architecture.md follow LAYERS, every .c is named in architecture.md,
# every function a doc names exists, no .c over 1,500 lines and no function
# over 200. tests/e2e/layers.py does the reading; this script
# runs it on the tree, then on copies with one violation each, which it must
# catch.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
command -v python3 >/dev/null || skip "no python3"
check=$TOP/tests/e2e/layers.py

if ! python3 "$check" --stats >"$T/tree.out" 2>&1; then
	cat "$T/tree.out"
	fail "the tree breaks its layers (above)"
fi
cat "$T/tree.out"

# copy: the checked folders, the Makefile and the docs
fresh() {
	rm -rf "$T/copy"
	mkdir -p "$T/copy"
	git ls-files -z src cache resolvers docs README.md Makefile tests/unit tests/e2e/lib.sh |
		tar --null -T - -cf - | tar -xf - -C "$T/copy"
}
# expect WHAT ERE: the checker fails on the copy with a line matching ERE
expect() {
	local what=$1 ere=$2
	if python3 "$check" --root "$T/copy" >"$T/bad.out" 2>&1; then
		cat "$T/bad.out"
		fail "$what: not caught"
	fi
	grep -Eq -- "$ere" "$T/bad.out" || { cat "$T/bad.out"; fail "$what: no line matches /$ere/"; }
	echo "ok: $what caught: $(grep -Em1 -- "$ere" "$T/bad.out")"
}
# add_include FILE HEADER: one more include, before banned.h / at the top
add_include() {
	sed -i "0,/^#include \"/s//#include \"$2\"\n#include \"/" "$T/copy/$1"
}

fresh
add_include src/util/buf.c cmd.h
expect "an include that goes up (util -> cli)" \
	'src/util/buf.c: includes src/cli/cmd.h, a higher layer'

fresh
add_include src/core/core.c textparse.h
expect "an include of a peer (core -> text)" \
	"src/core/core.c: includes src/text/textparse.h, a peer"

fresh
add_include src/report/report-json.c pipeline.h
expect "an include that goes up (report -> pipeline)" \
	"src/report/report-json.c: includes src/pipeline/pipeline.h, a higher layer"

fresh
add_include src/fix/backport.c mapping.h
expect "an include the Makefile does not allow (fix -> components)" \
	"src/fix/backport.c: includes src/components/mapping.h, which the Makefile's INC_fix does not allow"

fresh
cp src/util/json.h "$T/copy/src/model/json.h"
expect "two headers of one name" "header name 'json.h' is not unique"

fresh
printf '#include "cycle-b.h"\n' >"$T/copy/src/util/cycle-a.h"
printf '#include "cycle-a.h"\n' >"$T/copy/src/util/cycle-b.h"
expect "an include cycle between files" "include cycle between files: src/util/cycle-a -> src/util/cycle-b -> src/util/cycle-a"

fresh
sed -i 's|^INC_util *=.*|INC_util       = -Isrc/util -Isrc/cli|' "$T/copy/Makefile"
expect "a Makefile that lets a layer see one above it" "Makefile: INC_util lets src/util see src/cli"

fresh
printf '\nSee ../shared/docs/design.md.\n' >>"$T/copy/README.md"
expect "a doc that names a file outside the repository" "README.md:[0-9]+: names '../shared'"

fresh
printf '/* see src/cmd-resolve.c */\n' >>"$T/copy/src/util/util.h"
expect "a comment that names a moved file" "src/util/util.h:[0-9]+: names 'src/cmd-resolve.c', which does not exist"

# the docs that cannot drift: the layer tables follow the Makefile's LAYERS
fresh
sed -i '/^| report | `src\/report\/`/d' "$T/copy/docs/HACKING.md"
expect "a layer table that drops a layer" \
	"docs/HACKING.md: the layer table under '## Layers' lists .*, the Makefile's LAYERS"

fresh
sed -i 's/^| 10 | `src\/report\/` | report |$/| 10 | `src\/pipeline\/` | report |/' "$T/copy/docs/architecture.md"
expect "a layer table out of the Makefile's order" \
	"docs/architecture.md: the layer table under '## The layers' lists"

# every .c is named in docs/architecture.md
fresh
printf '/* A file nobody wrote up. */\n' >"$T/copy/src/util/unnamed.c"
expect "a .c that docs/architecture.md does not name" \
	"src/util/unnamed.c: not named in docs/architecture.md"

# every function a doc names exists
fresh
printf '\nThe buffer is trimmed by `prov_buf_gone_away()`.\n' >>"$T/copy/README.md"
expect "a doc that names a function the code lacks" \
	'README.md:[0-9]+: names `prov_buf_gone_away`, which is nowhere in the code'

fresh
sed -i 's/`report_text_head`/`report_text_body`/' "$T/copy/docs/HACKING.md"
expect "a page about the code that names a static function the code lacks" \
	'docs/HACKING.md:[0-9]+: names `report_text_body`, which is nowhere in the code'

# sizes: no .c over 1,500 lines, no function over 200
fresh
for i in $(seq 1 1500); do echo "/* line $i */"; done >>"$T/copy/src/util/buf.c"
expect "a .c over 1,500 lines" "src/util/buf.c: [0-9]+ lines, over 1500"

fresh
{ printf '\nint prov_long_one(void);\nint prov_long_one(void)\n{\n\tint n = 0;\n\n'
  for i in $(seq 1 200); do printf '\tn += %d;\n' "$i"; done
  printf '\treturn n;\n}\n'; } >>"$T/copy/src/util/buf.c"
expect "a function over 200 lines" "src/util/buf.c:[0-9]+: function prov_long_one is 20[0-9] lines, over 200"
