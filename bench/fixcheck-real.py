#!/usr/bin/env python3
"""fixcheck on real Debian source packages and their real upstream histories.

The truth comes from the packages themselves: a quilt patch of debian/patches
(listed in series) whose DEP-3 header names an upstream commit (Origin: or
Applied-Upstream: with a commit URL or "commit:SHA"; or the "From SHA Mon Sep
17 00:00:00 2001" line of git format-patch, when SHA is a commit of the
upstream mirror) carries that commit. For each such commit,

    provenance fixcheck SHA --repo MIRROR --at TAG --debian-source SRC=VER --format json

must say included, with how in {distribution-patch, adapted, cherry-pick,
ancestor}; "not included" for it is a false NO, counted apart.

Missing fixes: for a line with newer=VERSION, the commits named by the newer
version's patches and by none of this version's are NOT in this version: they
must be reported not included (how "missing" or null), with first_tag the
first final release holding the commit (git tag --contains, pre-releases left
out by the rule below, lowest version first).

Packages list (--packages FILE; default bench/fixcheck-real.list), one a line:
    SOURCE VERSION MIRROR TAG-TEMPLATE [newer=VERSION] [check=present|missing|both]
MIRROR is a bare git directory, or owner+name under --mirrors (as the fetch
tool leaves them: DIR/owner+name/repo). TAG-TEMPLATE takes {upstream} (the
version without epoch, Debian revision and +dfsg/+ds/.dfsg suffix) and
{upstream_} (the same with '.' as '_'), e.g. v{upstream}, curl-{upstream_}.

Source packages are read from --src DIR (flat: SRC_VER.dsc and its files;
fetched there with `apt-get source --download-only SRC=VER` when missing,
which needs deb-src lines: --add-deb-src writes them when run as root) and
served to provenance by a local HTTP server as sources.debianBaseUrl, so the
binary's own archive layout logic is not what is measured. With
--real-archives provenance fetches from Debian's own archives instead (its
defaults), so their real layout is what is measured: a +debNuM version from
security.debian.org, whose pool may lack the orig signature the .dsc lists.

Usage:
    bench/fixcheck-real.py --provenance ./provenance [--work DIR] [--json OUT]

Python 3 standard library only.
"""

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time

RIGHT_HOW = {"distribution-patch", "adapted", "cherry-pick", "ancestor"}

# the same rule as provenance's pre-release test (prov_tag_is_prerelease):
# a word of letters after the first digit of the tag that is rc, alpha, beta,
# pre, dev or preview, or a lone a/b between two digits (v3.12.0a7)
PRE_WORDS = {"rc", "alpha", "beta", "pre", "dev", "preview"}


DEB_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

SHA_PATTERNS = [
    re.compile(r"/commit/?\??(?:id=)?([0-9a-f]{7,40})\b"),
    re.compile(r"[?&;]h=([0-9a-f]{7,40})\b"),
    re.compile(r"\bcommit[:/ ]\s*([0-9a-f]{7,40})\b"),
    re.compile(r"(?:^|[\s,])([0-9a-f]{12,40})(?:$|[\s,.])"),
]


def is_prerelease(tag):
    t = tag.lower()
    first_digit = re.search(r"\d", t)
    if not first_digit:
        return False
    for m in re.finditer(r"[a-z]+", t):
        if m.start() < first_digit.start():
            continue
        w = m.group(0)
        if w in PRE_WORDS:
            return True
        if w in ("a", "b") and t[m.start() - 1].isdigit() and m.end() < len(t) and t[m.end()].isdigit():
            return True
    return False


def upstream_of(version):
    v = version.split(":", 1)[-1]
    if "-" in v:
        v = v.rsplit("-", 1)[0]
    return re.sub(r"[+~.](dfsg|ds)\d*.*$", "", v)


def git(repo, *args):
    r = subprocess.run(["git", "--git-dir", repo] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def full_sha(repo, sha):
    out = git(repo, "rev-parse", "--verify", "--quiet", sha + "^{commit}")
    return out.strip() if out else None


def version_key(tag):
    return [(0, int(x)) if x.isdigit() else (1, x) for x in re.findall(r"\d+|[a-zA-Z]+", tag)]


def first_final_tag(repo, sha):
    out = git(repo, "tag", "--contains", sha) or ""
    tags = [t for t in out.split() if not is_prerelease(t)]
    if not tags:
        return None
    # the first release: the oldest tagged commit, lowest version on a tie
    dated = []
    for t in tags:
        d = git(repo, "log", "-1", "--format=%ct", t + "^{commit}")
        dated.append((int(d.strip()) if d and d.strip() else 0, version_key(t), t))
    dated.sort()
    return dated[0][2]


def read_patches(debian_tar):
    """{name: text} of the patches listed in debian/patches/series, in order."""
    with tarfile.open(debian_tar) as tf:
        members = {m.name.split("debian/", 1)[-1]: m for m in tf.getmembers() if m.isfile()}
        series = members.get("patches/series")
        if series is None:
            return []
        out = []
        for line in tf.extractfile(series).read().decode("utf-8", "replace").splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name = line.split()[0]
            m = members.get("patches/" + name)
            if m is not None:
                out.append((name, tf.extractfile(m).read().decode("utf-8", "replace")))
        return out


def named_commits(text, repo):
    """(sha, kind) pairs a patch header names, kept when the upstream mirror has them."""
    header = re.split(r"^(?:---\s*$|diff --git |Index: |--- )", text, maxsplit=1, flags=re.M)[0]
    found = []
    fields = re.findall(r"^(Origin|Applied-Upstream)\s*:\s*(.*(?:\n[ \t].*)*)", header, re.I | re.M)
    for field, value in fields:
        for pat in SHA_PATTERNS:
            for s in pat.findall(value):
                found.append((s, field.lower()))
    m = re.match(r"From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001", text)
    if m and not found:
        found.append((m.group(1), "format-patch"))
    out, seen = [], set()
    for s, kind in found:
        f = full_sha(repo, s)
        if f and f not in seen:
            seen.add(f)
            out.append((f, kind))
    return out


def dsc_files(path):
    names, take = [], False
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"^Checksums-Sha256:", line):
            take = True
            continue
        if take:
            if not line.startswith(" "):
                break
            names.append(line.split()[-1])
    return names


def ensure_source(srcdir, source, version, add_deb_src):
    v = version.split(":", 1)[-1]
    dsc = os.path.join(srcdir, "%s_%s.dsc" % (source, v))
    # a signature (.asc) is not needed to read the patches: the security
    # archive's pool lacks the orig's, which apt-get source then refuses
    if os.path.exists(dsc) and all(os.path.exists(os.path.join(srcdir, n))
                                   for n in dsc_files(dsc) if not n.endswith(".asc")):
        return dsc
    if add_deb_src and os.geteuid() == 0:
        path = "/etc/apt/sources.list.d/fixcheck-real-debsrc.sources"
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(DEB_SRC)
            subprocess.run(["apt-get", "update", "-qq"], check=False)
    os.makedirs(srcdir, exist_ok=True)
    r = subprocess.run(["apt-get", "source", "--download-only", "-qq", "%s=%s" % (source, version)],
                       cwd=srcdir, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(dsc):
        sys.exit("fixcheck-real: cannot get %s=%s (deb-src lines? --add-deb-src as root): %s"
                 % (source, version, r.stderr.strip()[-300:]))
    return dsc


def debian_tar(srcdir, dsc):
    for n in dsc_files(dsc):
        if ".debian.tar." in n:
            return os.path.join(srcdir, n)
    return None


def newer_debian_tar(srcdir, source, version, add_deb_src):
    """The debian.tar of the newer revision: only its patches are read, so one
    lying in --src is enough when the archive no longer serves its .dsc."""
    v = version.split(":", 1)[-1]
    for ext in ("xz", "gz", "bz2"):
        p = os.path.join(srcdir, "%s_%s.debian.tar.%s" % (source, v, ext))
        if os.path.exists(p):
            return p
    return debian_tar(srcdir, ensure_source(srcdir, source, version, add_deb_src))


def serve(srcdir):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    handler = functools.partial(Quiet, directory=srcdir)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, "http://127.0.0.1:%d" % httpd.server_address[1]


def fixcheck(args, base, repo, tag, source, version, shas):
    cmd = [args.provenance, "--cache", args.cache]
    if not args.real_archives:
        cmd += ["-c", "sources.debianBaseUrl=" + base]
    cmd += ["fixcheck"] + shas + ["--repo", repo, "--at", tag,
                                 "--debian-source", "%s=%s" % (source, version), "--format", "json"]
    if args.include_prereleases:
        cmd.append("--include-prereleases")
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.time() - t0
    try:
        res = json.loads(r.stdout) if r.stdout.strip() else []
    except ValueError:
        res = []
    if isinstance(res, dict):
        res = [res]
    by = {x.get("fix"): x for x in res if isinstance(x, dict)}
    err = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith("downloading ")]
    return by, r.returncode, err[-1:], dt, cmd


def score(c):
    """The verdict of one check (a dict with expect, how, included, first_tag, answered)."""
    if not c.get("answered"):
        return "no-answer"
    how, inc = c["how"], c["included"]
    if c["expect"] == "present":
        if inc is True and how in RIGHT_HOW:
            return "right"
        if how == "partial":
            return "partial"
        if inc is False:
            return "false-not-included"
        if inc is None:
            return "undetermined"
        return "other"
    if inc is True:
        return "false-included"
    if how == "partial":
        return "partial"
    if inc is None:
        return "undetermined"
    if how not in (None, "missing"):
        return "other"
    return "right" if c["first_tag"] == c.get("truth_first_tag") else "wrong-first-tag"


def load_list(path):
    rows = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        f = line.split()
        row = {"source": f[0], "version": f[1], "mirror": f[2], "tag": f[3], "newer": None, "check": "both"}
        for kv in f[4:]:
            k, _, v = kv.partition("=")
            row[k] = v
        rows.append(row)
    return rows


def report(checks, binary):
    pres = [c for c in checks if c["expect"] == "present"]
    miss = [c for c in checks if c["expect"] == "missing"]

    def count(cs, v):
        return sum(1 for c in cs if c["verdict"] == v)

    def pct(a, b):
        return "%.0f%%" % (100.0 * a / b) if b else "-"

    print("binary: %s" % binary)
    print("carried fixes: %d checks: how right %d (%s), false not-included %d, partial %d, "
          "undetermined (exit 3) %d, no answer %d, other %d"
          % (len(pres), count(pres, "right"), pct(count(pres, "right"), len(pres)),
             count(pres, "false-not-included"), count(pres, "partial"), count(pres, "undetermined"),
             count(pres, "no-answer"), count(pres, "other")))
    print("missing fixes: %d checks: right (not included, first final release) %d (%s), wrong first tag %d, "
          "said included %d, partial %d, undetermined (exit 3) %d, no answer %d, other %d"
          % (len(miss), count(miss, "right"), pct(count(miss, "right"), len(miss)), count(miss, "wrong-first-tag"),
             count(miss, "false-included"), count(miss, "partial"), count(miss, "undetermined"),
             count(miss, "no-answer"), count(miss, "other")))
    for src in sorted({c["source"] for c in checks}):
        cs = [c for c in checks if c["source"] == src]
        p = [c for c in cs if c["expect"] == "present"]
        m = [c for c in cs if c["expect"] == "missing"]
        print("  %-12s carried %d/%d right, missing %d/%d right" % (src, count(p, "right"), len(p),
                                                                   count(m, "right"), len(m)))
    print("wrong:")
    for c in checks:
        if c["verdict"] != "right":
            print("  %s %s=%s %s %s [%s, %s]: how=%s included=%s first_tag=%s%s%s%s" % (
                c["verdict"], c["source"], c["version"], c["fix"][:12], c["patch"], c["expect"], c["named_by"],
                c["how"], c["included"], c["first_tag"],
                (" truth=%s" % c["truth_first_tag"]) if c["expect"] == "missing" else "",
                (" hunks=" + c["hunks"]) if c.get("hunks") else "",
                (" (" + (c.get("reason") or c["stderr"]) + ")") if (c.get("reason") or c["stderr"]) and c["how"] is None else ""))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--provenance", help="the binary measured (required unless --rescore)")
    ap.add_argument("--packages", default=os.path.join(here, "fixcheck-real.list"))
    ap.add_argument("--mirrors", default="/work/.mirror", help="DIR/owner+name/repo upstream mirrors")
    ap.add_argument("--src", default="/tmp/fixcheck-real/src", help="Debian source packages (flat)")
    ap.add_argument("--cache", default=None, help="provenance cache (default: fresh under --work)")
    ap.add_argument("--work", default="/tmp/fixcheck-real")
    ap.add_argument("--json", default=None, help="write every check here")
    ap.add_argument("--add-deb-src", action="store_true", help="as root: add bookworm deb-src lines")
    ap.add_argument("--include-prereleases", action="store_true")
    ap.add_argument("--real-archives", action="store_true",
                    help="provenance fetches from Debian's own archives (its defaults: deb.debian.org and "
                         "security.debian.org) instead of the local server, so their real layout is measured")
    ap.add_argument("--only", default=None, help="only this source package")
    ap.add_argument("--rescore", default=None, metavar="JSON", help="score the checks a --json run saved")
    args = ap.parse_args()
    if args.rescore:
        checks = json.load(open(args.rescore))
        for c in checks:
            c.setdefault("answered", c.get("verdict") != "no-answer")
            c["verdict"] = score(c)
        report(checks, "(from %s)" % args.rescore)
        return
    if not args.provenance:
        ap.error("--provenance BIN is required")
    args.provenance = os.path.abspath(args.provenance)
    if args.cache is None:
        args.cache = os.path.join(args.work, "cache-%d" % os.getpid())
    os.makedirs(args.work, exist_ok=True)
    httpd, base = serve(args.src) if os.path.isdir(args.src) else (None, None)
    if httpd is None:
        os.makedirs(args.src, exist_ok=True)
        httpd, base = serve(args.src)

    checks = []
    for row in load_list(args.packages):
        if args.only and row["source"] != args.only:
            continue
        repo = row["mirror"] if os.path.isdir(row["mirror"]) else os.path.join(args.mirrors, row["mirror"], "repo")
        if not os.path.isdir(repo):
            print("skip %s: no mirror %s" % (row["source"], repo), file=sys.stderr)
            continue
        up = upstream_of(row["version"])
        tag = row["tag"].replace("{upstream}", up).replace("{upstream_}", up.replace(".", "_"))
        if not full_sha(repo, tag):
            print("skip %s: no tag %s in %s" % (row["source"], tag, repo), file=sys.stderr)
            continue
        dsc = ensure_source(args.src, row["source"], row["version"], args.add_deb_src)
        mine = []
        for name, text in read_patches(debian_tar(args.src, dsc)):
            for sha, kind in named_commits(text, repo):
                mine.append((sha, name, kind))
        todo = []
        if row["check"] in ("both", "present"):
            todo += [("present", sha, name, kind) for sha, name, kind in mine]
        if row.get("newer") and row["check"] in ("both", "missing"):
            have = {s for s, _, _ in mine}
            ntar = newer_debian_tar(args.src, row["source"], row["newer"], args.add_deb_src)
            for name, text in read_patches(ntar):
                for sha, kind in named_commits(text, repo):
                    if sha not in have:
                        have.add(sha)
                        todo.append(("missing", sha, name, kind))
        if not todo:
            continue
        by, rc, err, dt, cmd = fixcheck(args, base, repo, tag, row["source"], row["version"],
                                        [t[1] for t in todo])
        print("%s=%s at %s: %d checks, exit %d, %.1f s%s" % (row["source"], row["version"], tag, len(todo),
              rc, dt, (" (" + err[0] + ")") if err else ""), file=sys.stderr)
        for kind, sha, name, ev in todo:
            x = by.get(sha)
            c = {"source": row["source"], "version": row["version"], "tag": tag, "expect": kind,
                 "fix": sha, "patch": name, "named_by": ev, "repo": repo,
                 "how": x.get("how") if x else None, "included": x.get("included") if x else None,
                 "via": x.get("via") if x else None, "first_tag": x.get("first_tag") if x else None,
                 "exit": rc, "stderr": err[0] if err else "",
                 "reason": x.get("reason") if x else None,
                 "hunks": ",".join("%s" % e.get("state") for e in (x.get("evidence") or [])) if x else ""}
            c["answered"] = x is not None
            if kind == "missing":
                c["truth_first_tag"] = first_final_tag(repo, sha)
            c["verdict"] = score(c)
            checks.append(c)
    httpd.shutdown()

    report(checks, args.provenance)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(checks, f, indent=1)
    shutil.rmtree(args.cache, ignore_errors=True)


if __name__ == "__main__":
    main()
