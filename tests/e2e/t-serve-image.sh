#!/usr/bin/env bash
# serve and images (issue 38): two OCI image layouts made here, 2 + 1
# crashes recorded from them and 1 without; B's report imported with its tag
# made markup (a stored report comes from a fleet's host: untrusted). by=image groups per manifest
# digest as triage --by image does, and each image's bucket links to that
# image's crashes of the signature; image= takes a digest, its start of 12 or
# more hex digits, or a tag, and answers 400 with one line for a start that
# is too short, markup, or a start of two digests; the crash page names the
# image. The truth: sha256sum of the manifests written here. The markup tag
# reaches no page raw.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-oci.sh"
command -v curl >/dev/null || skip "no curl"
command -v python3 >/dev/null || skip "no python3"
command -v sqlite3 >/dev/null || skip "no sqlite3"
trap 'stop_servers; rm -rf "$T"' EXIT

TAG='<b>x</b>'
A=$(mkoci "$T/oci-a" v1 alpha)
B=$(mkoci "$T/oci-b" b2 beta)
[ -n "$A" ] && [ -n "$B" ] && [ "$A" != "$B" ] || fail "cannot make two images"
echo "ok: image A sha256:$A (v1), image B sha256:$B (b2)"
cat >"$T/bt.txt" <<'EOF'
Program terminated with signal SIGSEGV, Segmentation fault.
#0  0x0000555555555131 in crash_here () at crash.c:3
#1  0x0000555555555150 in main () at crash.c:8
EOF
S=$T/s.sqlite
check_exit 0 "record in A (a1)" -- "$PROVENANCE" resolve --offline --store "$S" --host a1 --sysroot "oci:$T/oci-a:v1" "$T/bt.txt"
check_exit 0 "record in A (a2)" -- "$PROVENANCE" resolve --offline --store "$S" --host a2 --sysroot "oci:$T/oci-a:v1" "$T/bt.txt"
# B's report as a fleet's host would send it: its tag made markup (serve shows what import took)
check_exit 0 "resolve in B" -- "$PROVENANCE" resolve --offline --host b1 --sysroot "oci:$T/oci-b:b2" "$T/bt.txt" --format json
python3 - "$T/last.out" "$T/b.json" "$TAG" <<'PY' || fail "B's report with a tag of markup"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["input"]["sysroot"]["ref"] == "b2"
r["input"]["sysroot"]["ref"] = sys.argv[3]
json.dump(r, open(sys.argv[2], "w"))
PY
check_exit 0 "import B's report (b1)" -- "$PROVENANCE" import --store "$S" "$T/b.json"
check_exit 0 "record without an image (n1)" -- "$PROVENANCE" resolve --offline --store "$S" --host n1 "$T/bt.txt"
check_eq "$(sqlite3 "$S" "SELECT group_concat(id || ' ' || host || ' ' || coalesce(image_digest, '-') || ' ' || coalesce(image_ref, '-'), ',') FROM (SELECT * FROM crashes ORDER BY id)")" \
	"1 a1 sha256:$A v1,2 a2 sha256:$A v1,3 b1 sha256:$B $TAG,4 n1 - -" "the store's crashes and images"
SIG=$(sqlite3 "$S" 'SELECT DISTINCT signature FROM crashes')
SIGU=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe="-._~"))' "$SIG")

# get NAME PATH: fetch into $T/NAME; prints the status
get() { curl -s -o "$T/$1" -w '%{http_code}' "$BASE$2"; }
# raw_free NAME: the markup tag is nowhere raw on the page
raw_free() { ! grep -qF "$TAG" "$T/$1" || fail "$1: the tag's markup reached the page raw"; }

start_server lite --store "$S" --listen 127.0.0.1:0
check_eq "$(get by.json '/api/triage.json?by=image')" 200 "/api/triage.json?by=image"
check_eq "$(json_get "$T/by.json" "[(b['digest'], b['count']) for b in d['groups'][0]['buckets']]")" \
	"$(python3 -c 'import json,sys; a, b = sys.argv[1:]; print(json.dumps(sorted([["sha256:" + a, 2], ["sha256:" + b, 1]]) + [[None, 1]]))' "$A" "$B")" \
	"by=image: crashes per manifest digest (sha256sum of the manifests), no image last"
"$PROVENANCE" triage --store "$S" --by image --format json >"$T/triage.json" || fail "triage --by image"
check_eq "$(json_get "$T/by.json" "d['groups'][0]['buckets']")" "$(json_get "$T/triage.json" "d['groups'][0]['buckets']")" \
	"by=image: the same buckets as triage --by image"

check_eq "$(get by.html '/?by=image')" 200 "/?by=image"
raw_free by.html
grep -qF '&lt;b&gt;x&lt;/b&gt;@sha256:'"${B:0:12}" "$T/by.html" || fail "by=image: B's label, escaped"
grep -qF '<option value="image" selected>' "$T/by.html" || fail "by=image: the form's select"
# each image's bucket links to its crashes of the signature; (no image) links nowhere
link=$(grep -o "<a class=\"image\" href=\"[^\"]*\">v1@sha256:${A:0:12}</a>" "$T/by.html" | sed 's/.*href="\([^"]*\)".*/\1/; s/&amp;/\&/g')
check_eq "$link" "/signature/$SIGU?by=image&image=sha256%3A$A" "by=image: A's bucket links to A's crashes"
grep -q '<a class="image"[^>]*>(no image)' "$T/by.html" && fail "by=image: (no image) is a link"
check_eq "$(get a.html "$link")" 200 "A's bucket's link"
check_match "$(cat "$T/a.html")" 'id="count">2<' "A's bucket's link: A's 2 crashes"
check_eq "$(grep -o 'href="/crash/[0-9]*"' "$T/a.html" | sort -u | tr '\n' ' ')" 'href="/crash/1" href="/crash/2" ' "A's bucket's link: crashes 1 and 2"
link=$(grep -o "<a class=\"image\" href=\"[^\"]*\">&lt;b&gt;x&lt;/b&gt;@sha256:${B:0:12}</a>" "$T/by.html" | sed 's/.*href="\([^"]*\)".*/\1/; s/&amp;/\&/g')
check_eq "$(get b.html "$link")" 200 "B's bucket's link"
check_match "$(cat "$T/b.html")" 'id="count">1<' "B's bucket's link: B's crash"
raw_free b.html

# image=: a whole digest, its start, a tag
check_eq "$(get f1.json "/api/triage.json?image=${A:0:12}")" 200 "image=A's first 12 hex digits"
check_eq "$(json_get "$T/f1.json" "d['total']")" 2 "image=A's first 12: A's crashes"
check_eq "$(get f2.json "/api/triage.json?image=sha256%3A${B:0:16}&by=host")" 200 "image=sha256:B's first 16"
check_eq "$(json_get "$T/f2.json" "[b['key'] for b in d['groups'][0]['buckets']]")" '["b1"]' "image=sha256:B's first 16: B's host"
check_eq "$(get f3.json "/api/triage.json?image=sha256%3A$A")" 200 "image=A's whole digest"
check_eq "$(json_get "$T/f3.json" "d['total']")" 2 "image=A's whole digest: A's crashes"
check_eq "$(get f4.json '/api/triage.json?image=v1')" 200 "image=v1"
check_eq "$(json_get "$T/f4.json" "d['total']")" 2 "image=v1: A's crashes"
check_eq "$(get f5.html "/?image=${B:0:12}")" 200 "/?image=B's first 12"
check_match "$(cat "$T/f5.html")" 'id="total">1<' "/?image=B's first 12: 1 crash"
grep -qF "name=\"image\" placeholder=\"sha256:12+ hex digits or a tag\" value=\"${B:0:12}\"" "$T/f5.html" || fail "the form keeps image="
# bad image=: 400 with one line, nothing raw
check_eq "$(get bad1.html "/?image=${A:0:11}")" 400 "image= of 11 hex digits"
check_match "$(cat "$T/bad1.html")" 'too short for a digest' "image= of 11 hex digits: says why"
check_eq "$(get bad2.html '/?image=%3Cb%3Ex%3C%2Fb%3E')" 400 "image= with markup"
raw_free bad2.html
check_eq "$(get bad3.json "/api/triage.json?image=sha256%3A${A:0:10}")" 400 "api: image=sha256: too short"
check_eq "$(wc -l <"$T/bad3.json")" 1 "api: one line"
check_eq "$(get bad4.html '/?by=imag')" 400 "by=imag"

# the crash page names the image; the tag escaped
check_eq "$(get c3.html /crash/3)" 200 "/crash/3 (in B)"
raw_free c3.html
grep -qF "<code id=\"image-digest\">sha256:$B</code>" "$T/c3.html" || fail "/crash/3: B's digest"
grep -qF '<code id="image-ref">&lt;b&gt;x&lt;/b&gt;</code>' "$T/c3.html" || fail "/crash/3: B's tag, escaped"
grep -qF "href=\"/?by=image&amp;image=sha256%3A$B\"" "$T/c3.html" || fail "/crash/3: a link to B's crashes"
echo "ok: /crash/3 names B's digest and its tag, escaped"
check_eq "$(get c4.html /crash/4)" 200 "/crash/4 (no image)"
grep -q 'id="image"' "$T/c4.html" && fail "/crash/4: an image where none was"
echo "ok: /crash/4 names no image"
stop_servers

# two digests that share their first 14 hex digits (FAKE differs from A in every later digit)
FAKE=${A:0:14}$(printf '%s' "${A:14}" | tr '0-9a-f' 'f0-9a-e')
cp "$S" "$T/amb.sqlite"
sqlite3 "$T/amb.sqlite" "UPDATE crashes SET image_digest = 'sha256:$FAKE' WHERE host = 'b1'" || fail "cannot make an ambiguous store"
start_server amb --store "$T/amb.sqlite" --listen 127.0.0.1:0
check_eq "$(get amb.json "/api/triage.json?image=${A:0:12}")" 400 "image= of two digests' start"
check_match "$(cat "$T/amb.json")" "start of 2 image digests" "image= of two digests' start: says so"
check_eq "$(get amb2.json "/api/triage.json?image=${A:0:15}")" 200 "image= one digit past what they share"
check_eq "$(json_get "$T/amb2.json" "d['total']")" 2 "image= one digit past what they share: A's crashes"
stop_servers
echo "ok: serve by=image and image="
