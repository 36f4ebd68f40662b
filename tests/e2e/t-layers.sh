#!/usr/bin/env bash
# The layers hold (docs/HACKING.md, "Layers"): header names are unique, no
# include cycle between files or folders, no folder includes a header of a
# layer above it or of a peer (order: the Makefile's LAYERS), the Makefile's
# INC_<layer> paths agree with that order, and comments and docs name only
# files of the repository. tests/e2e/layers.py does the reading; this script
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
	git ls-files -z src cache resolvers docs README.md Makefile |
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
