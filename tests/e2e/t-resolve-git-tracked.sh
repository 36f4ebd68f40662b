#!/usr/bin/env bash
# The git resolver claims only files the working tree tracks: a tool's
# repository (pyenv's ~/.pyenv ignores versions/) is not the origin of the
# builds it keeps there. Ground truth: `git ls-files --error-unmatch`.
# And a package that lists a directory (dpkg -S /usr/lib/python3 names
# linux-perf and others) does not own a module named like that directory.
. "$(dirname "$0")/lib.sh"
can_dump_core
F=$TOP/fixtures/crashers
tool=$T/tool
mkdir -p "$tool/bin" "$tool/versions/1.0/lib" "$tool/extra"
git -C "$tool" init -q -b main
git -C "$tool" config user.email t@example.invalid
git -C "$tool" config user.name t
printf 'versions/\n' >"$tool/.gitignore"

for where in versions/1.0/lib extra; do
	rm -f "$tool"/versions/1.0/lib/* "$tool"/extra/*
	cc -g -O0 -fPIC -shared -o "$tool/$where/libnull.so" "$F/libnull.c" || fail "cannot build libnull.so"
	cc -g -O0 -o "$tool/bin/nullmain" "$F/nullmain.c" "$tool/$where/libnull.so" -Wl,-rpath,"$tool/$where" ||
		fail "cannot build nullmain"
	git -C "$tool" add .gitignore bin/nullmain
	# the second round reads an index in version 4 (prefix-compressed paths)
	[ "$where" = extra ] && git -C "$tool" update-index --index-version 4
	git -C "$tool" commit -q -m "nullmain for $where"
	head=$(git -C "$tool" rev-parse HEAD)
	core=$(make_core "$T" "$tool/bin/nullmain") || exit 1
	"$PROVENANCE" resolve --offline "$core" --format json >"$T/r.json" 2>"$T/r.err"
	pkg() { json_get "$T/r.json" "[m['package'] and m['package']['$2'] for m in d['modules'] if m['path']=='$1'][0]"; }

	exe=$tool/bin/nullmain
	git -C "$tool" ls-files --error-unmatch bin/nullmain >/dev/null 2>&1 || fail "ground truth: bin/nullmain not tracked"
	check_eq "$(pkg "$exe" kind)" git "$where: tracked executable: kind"
	check_eq "$(pkg "$exe" commit)" "$head" "$where: tracked executable: commit (git rev-parse HEAD)"
	lib=$tool/$where/libnull.so
	if git -C "$tool" ls-files --error-unmatch "$where/libnull.so" >/dev/null 2>&1; then
		fail "ground truth: $where/libnull.so is tracked"
	fi
	why=untracked
	git -C "$tool" check-ignore -q "$where/libnull.so" && why=ignored
	k=$(pkg "$lib" kind)
	[ "$k" != git ] || fail "$where: the $why library is claimed by the tool's repository"
	echo "ok: $where: the $why library (not in git ls-files) is not the repository's (kind: $k)"
done

# a directory a package lists is not a module
if command -v dpkg >/dev/null && [ -d /usr/lib/python3 ] && dpkg -S /usr/lib/python3 >/dev/null 2>&1; then
	owners=$(dpkg -S /usr/lib/python3 | cut -d: -f1)
	cat >"$T/bt.txt" <<'BT'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001000 in main () from python3
BT
	"$PROVENANCE" resolve --offline "$T/bt.txt" --format json >"$T/t.json" 2>/dev/null
	name=$(json_get "$T/t.json" "[m['package'] and m['package']['name'] for m in d['modules'] if m['path']=='python3'][0]")
	file=
	for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib /lib/x86_64-linux-gnu /lib64 /lib; do
		[ -f "$d/python3" ] && { file=$d/python3; break; }
	done
	if [ -z "$file" ]; then
		check_eq "$name" null "module 'python3' (no such file in a library directory; /usr/lib/python3 is a directory of: $owners)"
	else
		check_eq "$name" "$(dpkg -S "$file" | cut -d: -f1)" "module 'python3' = dpkg -S $file"
	fi
fi
exit 0
