#!/usr/bin/env python3
"""A local forge for tests, on 127.0.0.1 with a port chosen by the OS.

  forge-server.py ROOT PORTFILE LOG [HOLD]

ROOT holds bare repositories as ROOT/OWNER/REPO.git. Served:
  git over smart HTTP      /OWNER/REPO.git/info/refs, .../git-upload-pack
                           (git http-backend)
  GitHub raw               /gh/OWNER/REPO/SHA/PATH
  GitLab                   /OWNER/REPO/-/raw/SHA/PATH
  cgit                     /OWNER/REPO.git/plain/PATH?id=SHA
  Gitea                    /OWNER/REPO/raw/commit/SHA/PATH
  a private repository     /private/...: 200 and an HTML sign-in page
  debuginfod               /buildid/ID/source/PATH: the file at the commit
                           named in ROOT/debuginfod (one line "OWNER/REPO SHA
                           PREFIX"), PATH with PREFIX taken off
Each request is one line "METHOD PATH" in LOG (before it is answered). With
HOLD, a single-file request waits (at most 60 s) until the file HOLD exists.
With FORGE_BYTES_LOG in the environment, each answered request also appends
"METHOD PATH BYTES" (bytes sent: status line, headers, body) to that file
(make bench: what a resolve downloaded).
The chosen port is written to PORTFILE. Runs until killed.
"""
import http.server
import os
import re
import subprocess
import sys
import time
import urllib.parse

ROOT, PORTFILE, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
HOLD = sys.argv[4] if len(sys.argv) > 4 else None


def show(owner, repo, sha, path):
    gd = os.path.join(ROOT, owner, repo + ".git")
    if not re.fullmatch(r"[0-9a-f]{40}", sha) or not os.path.isdir(gd):
        return None
    r = subprocess.run(["git", "--git-dir", gd, "show", "%s:%s" % (sha, path)],
                       capture_output=True)
    return r.stdout if r.returncode == 0 else None


def hold():
    if not HOLD:
        return
    for _ in range(600):
        if os.path.exists(HOLD):
            return
        time.sleep(0.1)


BYTES_LOG = os.environ.get("FORGE_BYTES_LOG")


class Counting:
    """The handler's wfile, counting what is written."""

    def __init__(self, f):
        self.f, self.n = f, 0

    def write(self, b):
        self.n += len(b)
        return self.f.write(b)

    def __getattr__(self, k):
        return getattr(self.f, k)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def setup(self):
        super().setup()
        self.wfile = Counting(self.wfile)

    def handle(self):
        super().handle()
        if BYTES_LOG and getattr(self, "command", None):
            with open(BYTES_LOG, "a") as f:
                f.write("%s %s %d\n" % (self.command, self.path, self.wfile.n))

    def log_message(self, *args):
        pass

    def note(self):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))

    def send(self, code, body, ctype="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def file(self, data):
        if data is None:
            self.send(404, b"not found\n")
        else:
            hold()
            self.send(200, data)

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                n = int(self.rfile.readline().strip().split(b";")[0], 16)
                if n == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def backend(self, path, query):
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   REMOTE_ADDR="127.0.0.1")
        data = self.body() if self.command == "POST" else b""
        env["CONTENT_LENGTH"] = str(len(data))
        enc = self.headers.get("Content-Encoding")
        if enc:
            env["HTTP_CONTENT_ENCODING"] = enc
        r = subprocess.run(["git", "http-backend"], input=data, env=env, capture_output=True)
        head, _, body = r.stdout.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.split(b"\r\n"):
            k, _, v = line.decode().partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route(self):
        self.note()
        u = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(u.path)
        q = urllib.parse.parse_qs(u.query)
        if path.startswith("/private/"):
            # a private repository: the forge answers with its sign-in page
            return self.send(200, b"<!DOCTYPE html>\n<html><body>Sign in</body></html>\n",
                             "text/html")
        if re.search(r"\.git/(info/refs|git-upload-pack|HEAD)$", path):
            return self.backend(path, u.query)
        m = re.fullmatch(r"/gh/([^/]+)/([^/]+)/([0-9a-f]{40})/(.+)", path)
        if m:
            return self.file(show(m[1], m[2], m[3], m[4]))
        m = re.fullmatch(r"/([^/]+)/([^/]+)/-/raw/([0-9a-f]{40})/(.+)", path)
        if m:
            return self.file(show(m[1], m[2], m[3], m[4]))
        m = re.fullmatch(r"/([^/]+)/([^/]+)\.git/plain/(.+)", path)
        if m and "id" in q:
            return self.file(show(m[1], m[2], q["id"][0], m[3]))
        m = re.fullmatch(r"/([^/]+)/([^/]+)/raw/commit/([0-9a-f]{40})/(.+)", path)
        if m:
            return self.file(show(m[1], m[2], m[3], m[4]))
        m = re.fullmatch(r"/buildid/([0-9a-f]+)/source(/.+)", path)
        if m and os.path.exists(os.path.join(ROOT, "debuginfod")):
            repo, sha, prefix = open(os.path.join(ROOT, "debuginfod")).read().split()
            if m[2].startswith(prefix):
                owner, name = repo.split("/")
                return self.file(show(owner, name, sha, m[2][len(prefix):]))
        return self.send(404, b"not found\n")

    do_GET = route
    do_POST = route


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
