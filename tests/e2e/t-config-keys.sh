#!/usr/bin/env bash
# Config keys the docs name are known (no "unknown config key" warning), a
# typo still warns, and a typed key with a bad value is refused with one line
# and exit 64 instead of being accepted silently.
. "$(dirname "$0")/lib.sh"
cd "$T"
for kv in core.plainDebug=false sources.debianSecurityBaseUrl=http://127.0.0.1:9/debian-security; do
	key=${kv%%=*}
	grep -rqi "$key" "$TOP/docs" || fail "$key is not documented in docs/"
	"$PROVENANCE" -c "$kv" version >/dev/null 2>"$T/err" || fail "-c $kv: exit $?"
	grep -qi "unknown config key" "$T/err" && fail "-c $kv: $(cat "$T/err")"
done
"$PROVENANCE" -c fetch.timout=3 version >/dev/null 2>"$T/err"
grep -q "unknown config key 'fetch.timout'" "$T/err" || fail "a typo no longer warns: $(cat "$T/err")"
for v in abc -1 10s 999999999; do
	"$PROVENANCE" -c fetch.timeout="$v" version >"$T/out" 2>"$T/err"
	rc=$?
	check_eq "$rc" 64 "fetch.timeout=$v: exit"
	check_eq "$(wc -l <"$T/err")" 1 "fetch.timeout=$v: one line"
	grep -q "fetch.timeout" "$T/err" || fail "fetch.timeout=$v: the line does not name the key"
done
"$PROVENANCE" -c fetch.timeout=30 version >/dev/null 2>"$T/err" || fail "fetch.timeout=30 refused"
[ -s "$T/err" ] && fail "fetch.timeout=30 warned: $(cat "$T/err")"
echo "config keys: known, typo warns, bad values refused"
