#!/usr/bin/env bash
# HTTPS with a private CA (fetch.sslCAInfo). A CA and a server certificate
# for localhost are made here with openssl; tls-proxy.py puts TLS in front
# of a local forge (git http-backend, forge-server.py) and of a server whose
# ref advertisement never ends (endless-refs.py). Checked:
# - a mirror clone over https (libgit2, its TLS through our bounded socket
#   stream): fails without the CA, and with another CA, with one line saying
#   the certificate is not trusted and naming fetch.sslCAInfo; succeeds with
#   fetch.sslCAInfo (and with git's http.sslCAInfo), giving the commit git
#   says the tag is; fixcheck over https exits 3 without the CA and gives
#   git's ancestry answer with it;
# - a download over https (curl: a release archive): the same, and its
#   lines are git's;
# - a CA file that cannot be read: said, naming the key;
# - fetch.maxRefsSize holds over TLS: the endless advertisement stops at
#   8 MiB, peak RSS under 200 MiB.
. "$(dirname "$0")/lib.sh"
for c in git openssl python3; do
	command -v $c >/dev/null || skip "$c not installed"
done
[ -x "$(git --exec-path)/git-http-backend" ] || skip "no git http-backend"
command -v /usr/bin/time >/dev/null || skip "no /usr/bin/time"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$T"' EXIT

# the CA, another CA, and the server's certificate signed by the first
mkdir -p "$T/pki" && cd "$T/pki" || fail "pki"
for ca in ca other; do
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=provenance test $ca" \
		-keyout $ca.key -out $ca.pem 2>/dev/null || fail "openssl: the $ca CA"
done
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout srv.key -out srv.csr 2>/dev/null &&
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >ext.cnf &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -set_serial 2 -days 2 -extfile ext.cnf \
		-out srv.pem 2>/dev/null || fail "openssl: the server certificate"
openssl verify -CAfile ca.pem srv.pem >/dev/null || fail "openssl verify: the server certificate"
cd "$T" || fail "cd"
CA=$T/pki/ca.pem

# upstream: v1.0, then a fix; the release archive of v1.0 served as a file
git init -q "$T/work" && printf 'int f(void)\n{\n\treturn 0;\n}\n' >"$T/work/a.c" &&
	git -C "$T/work" add . && git -C "$T/work" -c user.name=t -c user.email=t@t commit -q -m one &&
	git -C "$T/work" tag v1.0 && printf 'int f(void)\n{\n\treturn 1;\n}\n' >"$T/work/a.c" &&
	git -C "$T/work" -c user.name=t -c user.email=t@t commit -q -am fix || fail "repository"
mkdir -p "$T/srv/o" && git clone -q --bare "$T/work" "$T/srv/o/proj.git" || fail "bare clone"
want=$(git -C "$T/work" rev-parse 'v1.0^{commit}')
fix=$(git -C "$T/work" rev-parse HEAD)
git -C "$T/work" merge-base --is-ancestor "$fix" "$want" && fail "fixture: the fix is in v1.0"
git init -q "$T/dist" && git -C "$T/work" archive --prefix=proj-1.0/ v1.0 | gzip -n >"$T/dist/proj-1.0.tar.gz" &&
	git -C "$T/dist" add . && git -C "$T/dist" -c user.name=t -c user.email=t@t commit -q -m dist &&
	git clone -q --bare "$T/dist" "$T/srv/o/dist.git" || fail "dist repository"
dist=$(git -C "$T/dist" rev-parse HEAD)
line3=$(git -C "$T/work" show v1.0:a.c | sed -n 3p)

python3 "$TOP/tests/e2e/forge-server.py" "$T/srv" "$T/forge.port" "$T/forge.log" &
pids+=($!)
wait_file "$T/forge.port" "the forge"
python3 "$TOP/tests/e2e/tls-proxy.py" "$T/pki/srv.pem" "$T/pki/srv.key" "$(cat "$T/forge.port")" "$T/tls.port" &
pids+=($!)
wait_file "$T/tls.port" "the TLS front"
U=https://localhost:$(cat "$T/tls.port")
GIT_SSL_CAINFO=$CA git ls-remote "$U/o/proj.git" | grep -q "$want" || fail "git itself cannot read $U over https"

printf 'PID 1234 - process\nTID 1234:\n#0  0x00007f0000001234 f - /usr/lib/libproj.so.1\n    /build/proj-1.0/a.c:3\n' >"$T/bt.txt"
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = %s/o/proj.git\n\tref = v1.0\n' "$U" >"$T/git.map"
printf '[component "proj"]\n\tlibrary = libproj.so*\n\tarchive = %s/gh/o/dist/%s/proj-1.0.tar.gz\n' "$U" "$dist" >"$T/archive.map"
comp() { json_get "$T/last.out" "[c.get('$1') for c in d['components'] if c['name'] == 'proj'][0]"; }
resolve() {	# resolve CACHE MAP WHAT CONFIG...: exit 1 (text input: no core), JSON in last.out
	local cache=$1 map=$2 what=$3; shift 3
	check_exit 1 "$what" -- "$PROVENANCE" --cache "$T/$cache" -c fetch.connectTimeout=5 "$@" \
		resolve "$T/bt.txt" --mapping "$T/$map" --format json
}
mirrors() { ls "$T/$1/mirrors" 2>/dev/null | grep -c '\.git$' || true; }

# 1. libgit2 over https
resolve c1 git.map "clone without a CA"
check_match "$(comp note)" "^cannot fetch '$U/o/proj.git': the server's certificate is not trusted \(.*\); fetch.sslCAInfo names a CA file to trust$" \
	"without a CA: one line, naming the key"
check_eq "$(comp commit)" null "without a CA: no commit"
check_eq "$(mirrors c1)" 0 "without a CA: no mirror"
resolve c2 git.map "clone with another CA" -c "fetch.sslCAInfo=$T/pki/other.pem"
check_match "$(comp note)" "the server's certificate is not trusted" "another CA: not trusted"
resolve c3 git.map "clone with fetch.sslCAInfo" -c "fetch.sslCAInfo=$CA"
check_eq "$(comp commit)" "$want" "with the CA: the commit of v1.0 (git rev-parse)"
check_eq "$(mirrors c3)" 1 "with the CA: one mirror"
grep -q "unknown config key" "$T/last.err" && fail "fetch.sslCAInfo is said to be unknown"
resolve c4 git.map "clone with http.sslCAInfo" -c "http.sslCAInfo=$CA"
check_eq "$(comp commit)" "$want" "git's http.sslCAInfo: the commit of v1.0"
resolve c5 git.map "a CA file that is not there" -c "fetch.sslCAInfo=$T/pki/none.pem"
check_eq "$(comp note)" "cannot read the CA file '$T/pki/none.pem' (fetch.sslCAInfo): No such file or directory" \
	"a missing CA file: said, naming the key"
check_exit 3 "fixcheck without a CA" -- "$PROVENANCE" --cache "$T/c6" fixcheck "$fix" --repo "$U/o/proj.git" --at "$want"
check_eq "$(grep -c "the server's certificate is not trusted" "$T/last.err")" 1 "fixcheck without a CA: one line says why"
check_exit 1 "fixcheck with the CA" -- "$PROVENANCE" --cache "$T/c6" -c "fetch.sslCAInfo=$CA" fixcheck "$fix" \
	--repo "$U/o/proj.git" --at "$want" --format json
check_eq "$(json_get "$T/last.out" 'd[0]["included"]')" false "fixcheck with the CA: not included (git merge-base)"
echo "ok: git over https: a private CA with fetch.sslCAInfo, one clear line without it"

# 2. curl over https: a release archive
resolve c7 archive.map "download without a CA"
check_match "$(comp note)" "^cannot download '$U/gh/o/dist/$dist/proj-1.0.tar.gz': the server's certificate is not trusted \(.*\); fetch.sslCAInfo names a CA file to trust$" \
	"download without a CA: one line, naming the key"
resolve c8 archive.map "download with the CA" -c "fetch.sslCAInfo=$CA"
check_eq "$(comp found_by)" "release archive" "download with the CA: found by the archive"
check_eq "$(json_get "$T/last.out" "[l['text'] for l in d['sources'][0]['lines'] if l['number'] == 3][0]")" "$line3" \
	"download with the CA: line 3 is git's"
echo "ok: downloads over https: the same key for curl"

# 3. fetch.maxRefsSize over TLS: an endless ref advertisement
python3 "$TOP/tests/e2e/endless-refs.py" "$T/end.port" http >/dev/null 2>"$T/end.log" &
pids+=($!)
wait_file "$T/end.port" "the endless server"
python3 "$TOP/tests/e2e/tls-proxy.py" "$T/pki/srv.pem" "$T/pki/srv.key" "$(cat "$T/end.port")" "$T/tlsend.port" &
pids+=($!)
wait_file "$T/tlsend.port" "the TLS front of the endless server"
printf '[component "proj"]\n\tlibrary = libproj.so*\n\trepo = https://localhost:%s/o/proj.git\n\tref = v1.0\n' \
	"$(cat "$T/tlsend.port")" >"$T/end.map"
/usr/bin/time -f "%M" -o "$T/rss" timeout 120 "$PROVENANCE" --cache "$T/c9" -c "fetch.sslCAInfo=$CA" \
	-c fetch.maxRefsSize=8m -c fetch.timeout=60 resolve "$T/bt.txt" --mapping "$T/end.map" --format json \
	>"$T/last.out" 2>"$T/last.err"; rc=$?
cat "$T/last.err"
check_eq "$rc" 1 "endless advertisement over TLS: exit code"
check_match "$(comp note)" "ref advertisement was over 8 MiB \(fetch.maxRefsSize\)" "endless advertisement over TLS: the bound"
rss=$(tail -n 1 "$T/rss")
echo "peak RSS $rss KiB"
[ "$rss" -lt $((200 << 10)) ] || fail "peak RSS $rss KiB for an 8 MiB bound over TLS"
echo "ok: fetch.maxRefsSize holds over https"
