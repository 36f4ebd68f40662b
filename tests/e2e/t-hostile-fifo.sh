#!/usr/bin/env bash
# FIFOs and device nodes where files are expected (issue 17 item 3): planted
# in a --sysroot as a package database or a library, named as INPUT, as the
# config file. Nothing may hang (each run is under `timeout`) and, by strace's
# account (ground truth: the kernel's view of every open), a FIFO or a device
# is never opened for reading: only looked at through O_PATH. A pipe that does
# carry data (<(cat file), a FIFO with a writer) is read like the file itself.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "strace is not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
# LeakSanitizer cannot run under ptrace: off for the traced runs of sanitizer builds
untraced_leaks="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export HOME="$T/home" PROVENANCE_CACHE="$T/cache"
mkdir -p "$HOME"

R="$T/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/rpm" "$R/usr/lib/x86_64-linux-gnu" "$R/lib/x86_64-linux-gnu"
mkfifo "$R/var/lib/dpkg/status" "$R/var/lib/rpm/rpmdb.sqlite"
# a character device as a library (the harmless /dev/null driver: 1,3); only root may mknod
devs=0
if mknod "$R/usr/lib/x86_64-linux-gnu/libplanted.so.6" c 1 3 2>/dev/null; then
	devs=1
	mknod "$R/lib/x86_64-linux-gnu/libdevice.so.1" c 1 3
else
	note "mknod not permitted: device nodes not planted (FIFOs only)"
	mkfifo "$R/usr/lib/x86_64-linux-gnu/libplanted.so.6" "$R/lib/x86_64-linux-gnu/libdevice.so.1"
fi
cat >"$T/bt.txt" <<'BT'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x00007f0000001000 in abort () from /usr/lib/x86_64-linux-gnu/libplanted.so.6
#1  0x00007f0000002000 in sin () from /lib/x86_64-linux-gnu/libdevice.so.1
#2  0x0000000000401136 in main () at main.c:5
BT

# no_read_open LOG NAME...: no open of NAME in the strace log without O_PATH
no_read_open() {
	local log=$1 n bad; shift
	for n in "$@"; do
		bad=$(grep -F "$n" "$log" | grep -E 'open(at2?)?\(' | grep -v 'O_PATH' | grep -v ENOENT)
		[ -z "$bad" ] || { echo "$bad" | head -5; fail "'$n' was opened for reading"; }
		grep -F "$n" "$log" | grep -q O_PATH || fail "'$n' was never even looked at (test is not testing)"
	done
	echo "ok: $(basename "$log"): ${*##*/} only opened O_PATH"
}

for cmd in env resolve; do
	args=(--sysroot "$R")
	[ $cmd = resolve ] && args+=(--offline "$T/bt.txt")
	timeout 120 env "$untraced_leaks" strace -f -qq -e trace=open,openat,openat2 -o "$T/$cmd.strace" \
		"$PROVENANCE" $cmd "${args[@]}" >"$T/$cmd.out" 2>"$T/$cmd.err"
	rc=$?
	[ $rc = 124 ] && fail "provenance $cmd --sysroot hangs on a FIFO"
	case $rc in 0|1|3) ;; *) cat "$T/$cmd.err"; fail "$cmd --sysroot: exit $rc" ;; esac
	echo "ok: $cmd --sysroot with FIFOs$([ $devs = 1 ] && echo ' and devices') exits $rc"
	no_read_open "$T/$cmd.strace" var/lib/dpkg/status var/lib/rpm/rpmdb.sqlite
	[ $cmd = resolve ] && no_read_open "$T/$cmd.strace" libplanted.so.6 libdevice.so.1
done

# ---- INPUT: a FIFO nobody writes to fails at once, a pipe with data is read ----
mkfifo "$T/in.fifo"
timeout 120 "$PROVENANCE" resolve --offline "$T/in.fifo" >"$T/f.out" 2>"$T/f.err"
rc=$?
[ $rc = 124 ] && fail "a FIFO INPUT without a writer hangs"
check_eq "$rc" 2 "FIFO INPUT without a writer: exit"
check_match "$(cat "$T/f.err")" "^provenance: '.*in.fifo' is a named pipe with nothing to read" "FIFO INPUT message"

"$PROVENANCE" resolve --offline --format json "$T/bt.txt" >"$T/file.json" 2>/dev/null
"$PROVENANCE" resolve --offline --format json <(cat "$T/bt.txt") >"$T/procsub.json" 2>"$T/procsub.err"
rc=$?
case $rc in 0|1|3) ;; *) cat "$T/procsub.err"; fail "<(cat file): exit $rc" ;; esac
# ground truth: the same report as for the file itself, but for the input's name
check_eq "$(diff <(grep -v '"path"' "$T/file.json") <(grep -v '"path"' "$T/procsub.json") | wc -l)" 0 \
	"<(cat bt.txt) reports what bt.txt does"
( sleep 0.3; cat "$T/bt.txt" >"$T/in.fifo" ) &
timeout 120 "$PROVENANCE" resolve --offline --format json "$T/in.fifo" >"$T/fifo.json" 2>/dev/null
wait
check_eq "$(diff <(grep -v '"path"' "$T/file.json") <(grep -v '"path"' "$T/fifo.json") | wc -l)" 0 \
	"a FIFO with a writer reports what the file does"
# compressed input through a pipe: spooled to a temporary file, never sought
gzip -c "$T/bt.txt" >"$T/bt.gz"
"$PROVENANCE" resolve --offline --format json <(cat "$T/bt.gz") >"$T/gz.json" 2>"$T/gz.err"
grep -q "cannot seek" "$T/gz.err" && fail "a pipe was sought"
check_eq "$(diff <(grep -v '"path"' "$T/file.json") <(grep -v -e '"path"' -e '"compression"' "$T/gz.json") | wc -l)" 0 \
	"<(cat bt.gz) reports what bt.txt does"

# ---- the config file as a FIFO or a device: refused, never opened ----
mkdir -p "$XDG_CONFIG_HOME/provenance"
mkfifo "$XDG_CONFIG_HOME/provenance/config"
timeout 120 env "$untraced_leaks" strace -f -qq -e trace=open,openat,openat2 -o "$T/cfg.strace" \
	"$PROVENANCE" resolve --offline "$T/bt.txt" >/dev/null 2>"$T/cfg.err"
rc=$?
[ $rc = 124 ] && fail "a FIFO config file hangs"
check_eq "$rc" 2 "FIFO config: exit"
check_match "$(cat "$T/cfg.err")" "^provenance: cannot open '.*/config': not a regular file" "FIFO config message"
no_read_open "$T/cfg.strace" "$XDG_CONFIG_HOME/provenance/config"
