#!/usr/bin/env bash
# A PostgreSQL connection string libpq cannot parse (issue 39 #8): libpq's
# message quotes it whole, and query, import and triage printed that message,
# password included. The password must be in no output; the exit is 2.
. "$(dirname "$0")/lib.sh"

pw=PwS3cretXYZ
printf '{}\n' >"$T/r.json"
n=0
for store in "postgresql://alice:$pw@[::1/crashes" "postgresql://alice:$pw@db.invalid/crashes?x=%zz" \
	"host=db.invalid password=$pw port"; do
	for cmd in "query --store" "import --store" "triage --store"; do
		args=()
		case $cmd in
		query*) args=("select 1") ;;
		import*) args=("$T/r.json") ;;
		esac
		rc=0
		"$PROVENANCE" --cache "$T/c" $cmd "$store" "${args[@]}" >"$T/out" 2>"$T/err" || rc=$?
		grep -qi "postgres\|libpq" "$T/err" || { cat "$T/err"; skip "no PostgreSQL support here ($cmd)"; }
		if grep -q "$pw" "$T/out" "$T/err"; then
			cat "$T/err"
			fail "$cmd '$store': the password reached the output"
		fi
		[ "$rc" = 2 ] || { cat "$T/err"; fail "$cmd '$store': exit $rc, expected 2"; }
		n=$((n + 1))
	done
done
echo "ok: $n unparsable connection strings, no password in any output"
