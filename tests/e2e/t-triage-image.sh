#!/usr/bin/env bash
# The store keeps the image a crash ran in (schema 7, docs/store.md): two OCI
# image layouts made here (tar, sha256sum and the image-spec's JSON), crashes
# recorded with --sysroot in each and one without; triage --by image counts
# per manifest digest what was recorded, the digests equal sha256sum of the
# manifests written here, --image filters by ref and by digest. A schema-6
# store (this schema with the image columns dropped, user_version 6) opens
# read-only with "could not determine" for images, and a writer upgrades it
# with no crash lost and the images read back from the stored reports. The
# same on a PostgreSQL server started here, when one is installed.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v sqlite3 >/dev/null || skip "no sqlite3"

. "$(dirname "$0")/lib-oci.sh"

A=$(mkoci "$T/oci-a" v1 alpha)
B=$(mkoci "$T/oci-b" "" beta)
[ -n "$A" ] && [ -n "$B" ] && [ "$A" != "$B" ] || fail "cannot make two images"
echo "ok: image A sha256:$A (ref v1), image B sha256:$B (no ref)"

cat >"$T/bt.txt" <<'EOF'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x0000555555555131 in crash_here () at crash.c:3
#1  0x0000555555555150 in main () at crash.c:8
EOF

# record STORE: 2 crashes in A (hosts a1, a2), 1 in B (b1), 1 without an image (n1)
record() {
	local s=$1
	check_exit 0 "record in A (a1)" -- "$PROVENANCE" resolve --offline --store "$s" --host a1 --sysroot "oci:$T/oci-a:v1" "$T/bt.txt" --format json
	check_eq "$(json_get "$T/last.out" "d['input']['sysroot']['digest']")" "sha256:$A" "the report names A's manifest digest"
	check_exit 0 "record in A (a2)" -- "$PROVENANCE" resolve --offline --store "$s" --host a2 --sysroot "oci:$T/oci-a:v1" "$T/bt.txt"
	check_exit 0 "record in B (b1)" -- "$PROVENANCE" resolve --offline --store "$s" --host b1 --sysroot "oci:$T/oci-b" "$T/bt.txt" --format json
	check_eq "$(json_get "$T/last.out" "d['input']['sysroot']['ref']")" null "B was named by no ref"
	check_exit 0 "record without an image (n1)" -- "$PROVENANCE" resolve --offline --store "$s" --host n1 "$T/bt.txt"
}

# want N: the buckets expected, A's 2 and B's 1 crash in digest order, then N with no image
want() {
	python3 -c 'import json,sys; a, b, n = sys.argv[1:]
print(json.dumps(sorted([["sha256:" + a, 2], ["sha256:" + b, 1]]) + [[None, int(n)]]))' "$A" "$B" "$1"
}

# check_buckets STORE TAG: triage --by image and --image answer what record recorded
check_buckets() {
	local s=$1 tag=$2
	check_exit 0 "$tag: triage --by image" -- "$PROVENANCE" triage --store "$s" --by image --format json
	cp "$T/last.out" "$T/$tag-by.json"
	check_eq "$(json_get "$T/last.out" "d['by']")" image "$tag: by"
	check_eq "$(json_get "$T/last.out" "[(b['digest'], b['count']) for b in d['groups'][0]['buckets']]")" \
		"$(want 1)" "$tag: crashes per image digest (in digest order, no image last)"
	check_eq "$(json_get "$T/last.out" "sorted(b['key'] for b in d['groups'][0]['buckets'])")" \
		"[\"(no image)\", \"sha256:${B:0:12}\", \"v1@sha256:${A:0:12}\"]" "$tag: labels"
	check_exit 0 "$tag: triage --by image (text)" -- "$PROVENANCE" triage --store "$s" --by image
	grep -Eq "^ +v1@sha256:${A:0:12} +2\$" "$T/last.out" || { cat "$T/last.out"; fail "$tag: text bucket of A"; }
	grep -Eq '^ +\(no image\) +1$' "$T/last.out" || fail "$tag: text bucket of no image"
	echo "ok: $tag: text buckets"
	check_exit 0 "$tag: --image v1" -- "$PROVENANCE" triage --store "$s" --image v1 --format json
	check_eq "$(json_get "$T/last.out" "d['total']")" 2 "$tag: crashes in the image named v1"
	check_exit 0 "$tag: --image sha256:B" -- "$PROVENANCE" triage --store "$s" --image "sha256:$B" --by host --format json
	check_eq "$(json_get "$T/last.out" "[b['key'] for b in d['groups'][0]['buckets']]")" '["b1"]' "$tag: the host of B's crash"
	check_exit 0 "$tag: --image HEX" -- "$PROVENANCE" triage --store "$s" --image "$A" --by day --format json
	check_eq "$(json_get "$T/last.out" "sum(b['count'] for b in d['groups'][0]['buckets'])")" 2 "$tag: A's crashes per day (not the day summaries)"
	check_exit 0 "$tag: --image of no crash" -- "$PROVENANCE" triage --store "$s" --image v9 --format json
	check_eq "$(json_get "$T/last.out" "d['total']")" 0 "$tag: no crash in an image named v9"
	# a digest's start, as git and docker take one: 12 hex digits or more
	check_exit 0 "$tag: --image (A's first 12 hex digits)" -- "$PROVENANCE" triage --store "$s" --image "${A:0:12}" --format json
	check_eq "$(json_get "$T/last.out" "d['total']")" 2 "$tag: A's crashes by a 12-digit prefix"
	check_exit 0 "$tag: --image sha256:(B's first 20, upper case)" -- "$PROVENANCE" triage --store "$s" --image "sha256:$(printf %s "${B:0:20}" | tr a-f A-F)" --by host --format json
	check_eq "$(json_get "$T/last.out" "[b['key'] for b in d['groups'][0]['buckets']]")" '["b1"]' "$tag: B's crash by a sha256: prefix"
	check_exit 0 "$tag: --image of no stored digest's start" -- "$PROVENANCE" triage --store "$s" --image "sha256:000000000000" --format json
	check_eq "$(json_get "$T/last.out" "d['total']")" 0 "$tag: a prefix of no stored digest matches no crash"
	check_exit 2 "$tag: --image too short (11 hex digits)" -- "$PROVENANCE" triage --store "$s" --image "${A:0:11}"
	check_match "$(cat "$T/last.err")" "too short for a digest \\(at least 12 hex digits\\)" "$tag: too short: the one line"
	check_eq "$(wc -l <"$T/last.err")" 1 "$tag: too short: one line"
	check_exit 2 "$tag: --image sha256: too short" -- "$PROVENANCE" triage --store "$s" --image "sha256:${A:0:8}"
	check_exit 2 "$tag: --image sha256: not hex" -- "$PROVENANCE" triage --store "$s" --image "sha256:${A:0:12}zz"
	check_exit 2 "$tag: --image with markup" -- "$PROVENANCE" triage --store "$s" --image '<b>v1</b>'
	check_eq "$(wc -l <"$T/last.err")" 1 "$tag: markup: one line"
}

# ambiguous TAG STORE: triage on a store where a crash of B made to carry a digest that shares A's first 14 hex
# digits (FAKE; the tr map has no fixed point: it differs from A in every digit after them)
FAKE=${A:0:14}$(printf '%s' "${A:14}" | tr '0-9a-f' 'f0-9a-e')
ambiguous() {
	local tag=$1 s=$2
	check_exit 2 "$tag: --image of two digests' start" -- "$PROVENANCE" triage --store "$s" --image "${A:0:12}"
	check_eq "$(wc -l <"$T/last.err")" 1 "$tag: ambiguous: one line"
	check_match "$(cat "$T/last.err")" "start of 2 image digests \\(sha256:$(printf '%s\n' "$A" "$FAKE" | sort | head -1 | cut -c1-16), sha256:$(printf '%s\n' "$A" "$FAKE" | sort | tail -1 | cut -c1-16)\\)" \
		"$tag: ambiguous: the candidates' short forms"
	check_exit 0 "$tag: one digit more than they share" -- "$PROVENANCE" triage --store "$s" --image "sha256:${A:0:15}" --format json
	check_eq "$(json_get "$T/last.out" "d['total']")" 2 "$tag: 15 digits: A's crashes only"
}

S=$T/s.sqlite
record "$S"
check_buckets "$S" lite
check_eq "$(sqlite3 "$S" 'PRAGMA user_version')" 7 "a new store is schema 7"
check_eq "$(sqlite3 "$S" "SELECT group_concat(coalesce(image_kind, '-') || ' ' || coalesce(image_ref, '-'), ',') FROM (SELECT * FROM crashes ORDER BY id)")" \
	"oci v1,oci v1,oci -,- -" "crashes.image_kind and image_ref as recorded"
check_exit 64 "--by nonsense" -- "$PROVENANCE" triage --store "$S" --by imag
check_exit 64 "--image ''" -- "$PROVENANCE" triage --store "$S" --image ''
cp "$S" "$T/amb.sqlite"
sqlite3 "$T/amb.sqlite" "UPDATE crashes SET image_digest = 'sha256:$FAKE' WHERE host = 'b1'" || fail "cannot make an ambiguous store"
ambiguous lite "$T/amb.sqlite"

# ---- upgrade: a schema-6 store (the image columns dropped, user_version 6) ----
cp "$S" "$T/old.sqlite"
sqlite3 "$T/old.sqlite" "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind;
	ALTER TABLE crashes DROP COLUMN image_digest; ALTER TABLE crashes DROP COLUMN image_ref;
	PRAGMA user_version=6;" || fail "cannot make a schema-6 store"
before=$(sqlite3 "$T/old.sqlite" 'SELECT count(*) FROM crashes')
check_eq "$before" 4 "crashes in the schema-6 store"
check_exit 0 "a reader reads a schema-6 store as it is" -- "$PROVENANCE" triage --store "$T/old.sqlite" --format json
check_eq "$(json_get "$T/last.out" "d['total']")" 4 "schema 6 read as it is: every crash"
check_exit 3 "schema 6 read as it is: --by image could not determine" -- "$PROVENANCE" triage --store "$T/old.sqlite" --by image
check_match "$(cat "$T/last.err")" "could not determine: .*schema 6" "the one line"
check_exit 3 "schema 6 read as it is: --image" -- "$PROVENANCE" triage --store "$T/old.sqlite" --image v1
check_eq "$(sqlite3 "$T/old.sqlite" 'PRAGMA user_version')" 6 "a reader did not upgrade it"
# a writer upgrades it: one more crash without an image
check_exit 0 "a writer upgrades it" -- "$PROVENANCE" resolve --offline --store "$T/old.sqlite" --host n2 "$T/bt.txt"
check_eq "$(sqlite3 "$T/old.sqlite" 'PRAGMA user_version')" 7 "upgraded to schema 7"
check_eq "$(sqlite3 "$T/old.sqlite" 'SELECT count(*) FROM crashes')" $((before + 1)) "no crash lost (4 before, and the new one)"
check_exit 0 "upgraded: --by image" -- "$PROVENANCE" triage --store "$T/old.sqlite" --by image --format json
check_eq "$(json_get "$T/last.out" "[(b['digest'], b['count']) for b in d['groups'][0]['buckets']]")" \
	"$(want 2)" "upgraded: the images read back from the stored reports"
# a report whose stored JSON does not parse does not stop the upgrade
cp "$S" "$T/bad.sqlite"
sqlite3 "$T/bad.sqlite" "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind;
	ALTER TABLE crashes DROP COLUMN image_digest; ALTER TABLE crashes DROP COLUMN image_ref;
	UPDATE reports SET json = '{\"input\": {\"sysroot\": ' WHERE crash_id = 1; PRAGMA user_version=6;" ||
	fail "cannot make a schema-6 store with a broken report"
check_exit 0 "a broken stored report: the upgrade goes on" -- "$PROVENANCE" resolve --offline --store "$T/bad.sqlite" --host n2 "$T/bt.txt"
check_eq "$(sqlite3 "$T/bad.sqlite" "SELECT count(*), count(image_digest), sum(image_digest IS NULL AND id = 1) FROM crashes")" \
	"5|2|1" "broken report's crash kept, its image NULL"

# ---- PostgreSQL ----
if [ ! -x "${PG_BIN:-/nonexistent}/initdb" ]; then
	echo "ok: SQLite only (no PostgreSQL server here: PostgreSQL part skipped)"
	exit 0
fi
pg_start
record "$PGURL"
check_buckets "$PGURL" pg
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [g.pop("latest_crash_id", None) for g in d["groups"]]; print(json.dumps(d, sort_keys=True))' "$1"; }
check_eq "$(norm "$T/pg-by.json")" "$(norm "$T/lite-by.json")" "--by image: PostgreSQL = SQLite"
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "pg: a new store is schema 7"
pg_sql "UPDATE crashes SET image_digest = 'sha256:$FAKE' WHERE host = 'b1'" >/dev/null || fail "pg: cannot make it ambiguous"
ambiguous pg "$PGURL"
pg_sql "DROP INDEX crashes_image; ALTER TABLE crashes DROP COLUMN image_kind, DROP COLUMN image_digest,
	DROP COLUMN image_ref; UPDATE store_meta SET value = '6' WHERE key = 'schema'" >/dev/null ||
	fail "pg: cannot make a schema-6 store"
check_exit 2 "pg: a reader asks for a writer first" -- "$PROVENANCE" triage --store "$PGURL" --by image
check_exit 0 "pg: a writer upgrades it" -- "$PROVENANCE" resolve --offline --store "$PGURL" --host n2 "$T/bt.txt"
check_eq "$(pg_sql "SELECT value FROM store_meta WHERE key = 'schema'")" 7 "pg: upgraded to schema 7"
check_eq "$(pg_sql 'SELECT count(*) FROM crashes')" 5 "pg: no crash lost (4 before, and the new one)"
check_exit 0 "pg upgraded: --by image" -- "$PROVENANCE" triage --store "$PGURL" --by image --format json
check_eq "$(json_get "$T/last.out" "[(b['digest'], b['count']) for b in d['groups'][0]['buckets']]")" \
	"$(want 2)" "pg upgraded: the images read back from the stored reports"
