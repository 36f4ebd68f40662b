#!/usr/bin/env bash
# A process that merely mmapped ELF files (as gdb does with what it reads)
# has their first page in its core; they were never loaded. The modules are
# what the dynamic loader loaded: the executable plus gdb's `info
# sharedlibrary` (the r_debug link map), with eu-unstrip's build IDs; the
# mapped files are not modules and no two module ranges overlap.
. "$(dirname "$0")/lib.sh"
can_dump_core
command -v gdb >/dev/null || skip "no gdb"
command -v eu-unstrip >/dev/null || skip "no eu-unstrip"
build_fixture "$TOP/fixtures/crashers/mmapelf.c" "$T/mmapelf"
mapped="$(command -v gdb) $(readlink -f "$(command -v ls)")"
core=$(make_core "$T" ./mmapelf $mapped) || exit 1

"$PROVENANCE" analyze "$core" --format json >"$T/a.json" 2>"$T/a.err"
rc=$?
[ $rc = 0 ] || { cat "$T/a.err"; fail "analyze exited $rc"; }

gdb -batch -ex "set debuginfod enabled off" -ex "info sharedlibrary" "$T/mmapelf" "$core" 2>/dev/null |
	awk '/^0x[0-9a-f]+ +0x[0-9a-f]+ /{print $NF}' >"$T/gdb.libs"
[ -s "$T/gdb.libs" ] || fail "gdb lists no shared library"
{ readlink -f "$T/mmapelf"; while read -r l; do readlink -f "$l"; done <"$T/gdb.libs"; } | sort >"$T/want"
json_get "$T/a.json" '"\n".join(m["path"] for m in d["modules"] if not m["path"].startswith("["))' |
	while read -r p; do readlink -f "$p"; done | sort >"$T/have"
diff "$T/want" "$T/have" >"$T/diff" || { cat "$T/diff"; fail "modules differ from the executable + gdb's info sharedlibrary"; }
echo "ok: modules = the executable + gdb's info sharedlibrary ($(wc -l <"$T/want"))"
for f in $mapped; do
	grep -qx "$(readlink -f "$f")" "$T/have" && fail "$f was only mapped, yet is a module"
done
echo "ok: the mmapped files are not modules"

# build IDs: eu-unstrip's, by start address
eu-unstrip -n --core "$core" | awk '{split($1, a, "+"); sub(/@.*/, "", $2); print a[1], $2}' >"$T/eu"
json_get "$T/a.json" '"\n".join("%s %s" % (m["start"], m["build_id"]) for m in d["modules"])' >"$T/ours"
while read -r start id; do
	grep -qx "$start $id" "$T/eu" || fail "module at $start: build ID $id is not eu-unstrip's"
done <"$T/ours"
echo "ok: every module's start and build ID as eu-unstrip reads them"
check_eq "$(json_get "$T/a.json" 'sum(1 for a in d["modules"] for b in d["modules"] if a is not b and int(a["start"],16) < int(b["end"],16) and int(b["start"],16) < int(a["end"],16))')" 0 "overlapping module ranges"
exit 0
