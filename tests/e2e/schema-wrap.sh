#!/bin/sh
# $PROVENANCE in the e2e tests: runs the real binary with the same argv, stdin, stderr and exit status, and keeps a copy of the JSON that triage, query, env, fixcheck (--format json) and show print for lib.sh's exit trap to validate against docs/schema/.
# lib.sh writes this file into the test's schema folder with the two lines
# below filled in. Anything else (another command, --help, a terminal on
# stdout) is exec'ed untouched, so pids, signals and stdout stay the binary's.
REAL=@REAL@
DIR=@DIR@
cmd= fmt= take= help=
for a do
	if [ -n "$take" ]; then
		[ "$take" = fmt ] && fmt=$a
		take=
		continue
	fi
	case $a in
	--) break ;;
	-h | --help | --version) help=1 ;;
	-c | --cache) [ -z "$cmd" ] && take=skip ;;
	--format) take=fmt ;;
	--format=*) fmt=${a#--format=} ;;
	-*) ;;
	*) [ -z "$cmd" ] && cmd=$a ;;
	esac
done
schema=
case $cmd in
triage | query | env | fixcheck) [ "$fmt" = json ] && schema=$cmd ;;
show) [ -z "$fmt" ] || [ "$fmt" = json ] && schema=report ;;
esac
if [ -z "$schema" ] || [ -n "$help" ] || [ -t 1 ] || [ ! -d "$DIR" ]; then
	exec "$REAL" "$@"
fi
out=$(mktemp "$DIR/$schema.XXXXXX") || exec "$REAL" "$@"
printf '%s\n' "$@" >"$out.argv"
# tee killed by a closed pipe (| head -1) leaves a partial copy: not checked
{ "$REAL" "$@"; echo $? >"$out.rc"; } | { tee "$out" 2>/dev/null || : >"$out.partial"; }
rc=1
[ -s "$out.rc" ] && read -r rc <"$out.rc"
if [ "$rc" -gt 128 ]; then	# died of a signal: die of it too
	trap - "$((rc - 128))" 2>/dev/null
	kill -s "$(kill -l "$rc")" $$ 2>/dev/null
fi
exit "$rc"
