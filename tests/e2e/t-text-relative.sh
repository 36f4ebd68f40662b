#!/usr/bin/env bash
# gdb frames printed "at src/x.c:12" (a relative path, no library) get the
# component whose tree, at the commit the report resolved, holds that path:
# repository path and source lines as for any frame. Two repositories made
# here (git is the truth: `git ls-tree` says which holds each path), each a
# component through a mapping made here and a Fedora debugsource path in the
# paste. A path only one tree holds: that component, its source line equal
# to the file's line in git. A path both trees hold: no component, and a
# warning says it could not be determined. A path neither holds: none.
. "$(dirname "$0")/lib.sh"

[ -x "$PROVENANCE" ] || skip "provenance is not built"
command -v git >/dev/null || skip "git not installed"

mkrepo() {	# mkrepo DIR TAG FILE...: a repository whose files say their name and line
	local dir=$1 tag=$2 f i
	shift 2
	mkdir -p "$dir"
	git -C "$dir" init -q
	for f in "$@"; do
		mkdir -p "$dir/$(dirname "$f")"
		for i in $(seq 1 600); do echo "/* $f $i */"; done >"$dir/$f"
	done
	git -C "$dir" add .
	git -C "$dir" -c user.name=t -c user.email=t@t commit -qm one
	git -C "$dir" tag "$tag"
}
mkrepo "$T/rocclr" rocm-5.5.1 rocclr/device/device.cpp src/x.c src/only-rocclr.c
mkrepo "$T/hip" rocm-5.5.1 hipamd/src/hip_module.cpp src/x.c lib/only-hip.c
cat >"$T/m.map" <<MAP
[component "rocclr"]
	package = rocclr
	repo = $T/rocclr
	ref = rocm-{major}.{minor}.{patch}

[component "hip"]
	package = hip
	repo = $T/hip
	ref = rocm-{major}.{minor}.{patch}
MAP
cat >"$T/at.txt" <<'TXT'
Program received signal SIGSEGV, Segmentation fault.
#0  0x00007f1000a1b520 in amd::Device::create (this=0x0) at /usr/src/debug/rocclr-5.5.1-8.fc39.x86_64/rocclr/device/device.cpp:412
#1  0x00007f1000a1b9a0 in rocclr_helper () at src/only-rocclr.c:12
#2  0x00007f2000a1b9a0 in hipModuleLoad () at /usr/src/debug/hip-5.5.1-1.fc39.x86_64/hipamd/src/hip_module.cpp:40
#3  0x00007f2000a1c000 in hip_helper () at lib/only-hip.c:7
#4  0x00007f2000a1c100 in shared_name () at src/x.c:3
#5  0x0000555500001000 in main () at app.c:5
#6  0x0000555500001100 in up () at ../src/only-rocclr.c:9
TXT
"$PROVENANCE" resolve "$T/at.txt" --offline --format json --mapping "$T/m.map" >"$T/at.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }

# the truth: which tree holds each relative path, from git
holds() { git -C "$T/$1" ls-tree -r --name-only HEAD -- "$2" | grep -qx "$2"; }
for p in src/only-rocclr.c lib/only-hip.c src/x.c app.c; do
	want=null n=0
	for r in rocclr hip; do
		if holds $r "$p"; then want=$r; n=$((n + 1)); fi
	done
	[ $n -gt 1 ] && want=null
	got=$(json_get "$T/at.json" "[f['component'] for f in d['threads'][0]['frames'] if f['file'] == '$p'][0]")
	[ "$got" = None ] && got=null
	check_eq "$got" "$want" "component of 'at $p'"
done
check_eq "$(json_get "$T/at.json" "[f['repo_path'] for f in d['threads'][0]['frames'] if f['file'] == 'lib/only-hip.c'][0]")" \
	lib/only-hip.c "repo_path of lib/only-hip.c"
check_eq "$(json_get "$T/at.json" "[f['component'] for f in d['threads'][0]['frames'] if f['file'] == '../src/only-rocclr.c'][0]")" \
	null "a path with '..' is not placed"
grep -q "'src/x.c' is in the trees of 2 components" "$T/err" || fail "no warning for src/x.c: $(cat "$T/err")"
# the source excerpt of rocclr_helper: line 12 of git's file at the tagged commit
commit=$(git -C "$T/rocclr" rev-parse rocm-5.5.1)
check_eq "$(json_get "$T/at.json" "[c['commit'] for c in d['components'] if c['name'] == 'rocclr'][0]")" "$commit" "rocclr's commit"
want=$(git -C "$T/rocclr" show "$commit:src/only-rocclr.c" | sed -n 12p)
check_eq "$(json_get "$T/at.json" "[l['text'] for s in d['sources'] if s['path'] == 'src/only-rocclr.c' for l in s['lines'] if l['number'] == 12][0]")" \
	"$want" "source line 12 of src/only-rocclr.c"
exit 0
