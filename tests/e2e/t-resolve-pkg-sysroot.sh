#!/usr/bin/env bash
# provenance resolve --sysroot: module paths of a pasted backtrace resolved in
# a fake container root (real dpkg and rpm databases, pip, conda, ROCm, git).
# Expected values come from the tools that built the root, never from provenance.
. "$(dirname "$0")/lib.sh"

"$TOP/fixtures/roots/build-root.sh" "$T/root" "$T/truth" || { rc=$?; [ $rc = 77 ] && exit 77; fail "cannot build the fixture root"; }
truth() { grep -m1 "^$1=" "$T/truth" | cut -d= -f2-; }

cat >"$T/bt.txt" <<BT
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001000 in foo_crash () from /usr/lib/x86_64-linux-gnu/libfoo.so.1.2.0
#1  0x00007f0000002000 in bar_fn () from /lib/x86_64-linux-gnu/libbar.so.2
#2  0x00007f0000003000 in qux_fn () from /usr/lib64/libqux.so.3.1.0
#3  0x00007f0000004000 in native_fn () from $(truth pip.mypkg.so)
#4  0x00007f0000005000 in at_fn () from $(truth pip.torch.so)
#5  0x00007f0000006000 in deflate () from $(truth conda.zlib.so)
#6  0x00007f0000007000 in hipLaunchKernel () from $(truth rocm.so)
#7  0x00007f0000008000 in my_fn () from $(truth git.myproj.so)
#8  0x00007f0000009000 in evil () from /usr/lib/x86_64-linux-gnu/libevil.so.1
#9  0x00007f000000a000 in plugin () from $(truth dpkg.divert.from)
#10 0x00007f000000b000 in plugin () from $(truth dpkg.divert.to)
BT
"$PROVENANCE" resolve --offline --sysroot "$T/root" --format json "$T/bt.txt" >"$T/out.json" 2>"$T/err"
rc=$?
[ $rc -le 1 ] || { cat "$T/err"; fail "resolve exited $rc"; }
pkg() {	# PATH FIELD
	json_get "$T/out.json" "([m['package'] for m in d['modules'] if m['path']=='$1'] or [None])[0] and [m['package'] for m in d['modules'] if m['path']=='$1'][0]['$2']"
}
check_eq "$(pkg /usr/lib/x86_64-linux-gnu/libfoo.so.1.2.0 name)" "$(truth dpkg.libfoo1.owner)" "merged /usr: owner of libfoo"
check_eq "$(pkg /usr/lib/x86_64-linux-gnu/libfoo.so.1.2.0 version)" "$(truth dpkg.libfoo1.version)" "libfoo version"
check_eq "$(pkg /usr/lib/x86_64-linux-gnu/libfoo.so.1.2.0 source)" "$(truth dpkg.libfoo1.source)" "libfoo source package"
check_eq "$(pkg /lib/x86_64-linux-gnu/libbar.so.2 name)" libbar2 "symlink through /lib: owner"
check_eq "$(pkg /lib/x86_64-linux-gnu/libbar.so.2 version)" "$(truth dpkg.libbar2.version)" "libbar version"
if [ -n "$(truth rpm.qux-libs.version)" ]; then
	check_eq "$(pkg /usr/lib64/libqux.so.3.1.0 kind)" rpm "libqux kind"
	check_eq "$(pkg /usr/lib64/libqux.so.3.1.0 version)" "$(truth rpm.qux-libs.version)" "libqux version"
fi
check_eq "$(pkg "$(truth pip.mypkg.so)" name)" mypkg "pip owner from RECORD"
check_eq "$(pkg "$(truth pip.mypkg.so)" commit)" "$(truth pip.mypkg.commit)" "pip commit from direct_url.json"
check_eq "$(pkg "$(truth pip.torch.so)" commit)" "$(truth pip.torch.commit)" "torch commit from version.py"
check_eq "$(pkg "$(truth conda.zlib.so)" kind)" conda "conda kind"
check_eq "$(pkg "$(truth conda.zlib.so)" version)" "$(truth conda.zlib.version)" "conda version"
check_eq "$(pkg "$(truth rocm.so)" version)" "$(truth rocm.version)" "ROCm version"
check_eq "$(pkg "$(truth git.myproj.so)" commit)" "$(truth git.myproj.commit)" "git HEAD"
check_eq "$(pkg /usr/lib/x86_64-linux-gnu/libevil.so.1 name)" null "symlink out of the root stays unresolved"
check_eq "$(pkg "$(truth dpkg.divert.from)" name)" "$(truth dpkg.divert.from.owner)" "diverted name: the diverter's file"
check_eq "$(pkg "$(truth dpkg.divert.to)" name)" "$(truth dpkg.divert.to.owner)" "diversion target: the original owner's file"
grep -q SECRET "$T/out.json" && fail "the host's /etc/shadow leaked"
exit 0
