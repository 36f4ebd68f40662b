#!/usr/bin/env python3
# endless-refs.py PORTFILE KIND: a git server (KIND http: smart HTTP's
# /info/refs?service=git-upload-pack; KIND git: the git:// protocol) whose
# ref advertisement never ends: pkt-lines (gitprotocol-pack(5)) naming
# refs/tags/tNNN forever. Writes its port to PORTFILE. For
# t-hostile-git-refs (issue 27).
import http.server, socket, socketserver, sys, threading

def pkt(s):
    return b"%04x" % (len(s) + 4) + s

def endless(write):
    write(pkt(b"0" * 40 + b" HEAD\0multi_ack side-band-64k ofs-delta\n"))
    chunk = b"".join(pkt(b"1" * 40 + b" refs/tags/t%09d\n" % k) for k in range(1000))
    while True:
        write(chunk)

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a):
        pass
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
        self.end_headers()
        try:
            self.wfile.write(pkt(b"# service=git-upload-pack\n") + b"0000")
            endless(self.wfile.write)
        except OSError:
            pass

class G(socketserver.BaseRequestHandler):
    def handle(self):
        try:
            self.request.recv(4096)
            endless(self.request.sendall)
        except OSError:
            pass

class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

class T(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True

s = S(("127.0.0.1", 0), H) if sys.argv[2] == "http" else T(("127.0.0.1", 0), G)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
