#!/usr/bin/env python3
"""A hostile HTTP server for the e2e tests: on 127.0.0.1, an ephemeral port
printed on stdout once it listens; HTTP/1.0, one thread a request, no log on
stderr. Every GET answers 200 with a body that never ends:

  http-server.py endless-elf [REQUEST-LOG]     "\\x7fELF" then 1 MiB blocks of "A"
  http-server.py endless-source REQUEST-LOG    "int x;\\n" blocks for paths with
                                               /source/ in them, 404 otherwise
  http-server.py trickle REQUEST-LOG           "/*" once a second

REQUEST-LOG, when given, gets each request's path on a line of its own.
"""
import http.server
import socketserver
import sys
import time

MODE = sys.argv[1]
LOG = sys.argv[2] if len(sys.argv) > 2 else None
if MODE not in ("endless-elf", "endless-source", "trickle"):
    sys.exit("http-server.py: unknown mode %r" % MODE)


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        if LOG:
            with open(LOG, "a") as log:
                log.write(self.path + "\n")
        if MODE == "endless-source" and "/source/" not in self.path:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream" if MODE == "endless-elf" else "text/plain")
        self.end_headers()
        if MODE == "endless-elf":
            chunk, pause = b"\x7fELF" + b"A" * (1 << 20), 0
        elif MODE == "endless-source":
            chunk, pause = b"int x;\n" * (1 << 17), 0
        else:
            chunk, pause = b"/*", 1
        try:
            while True:
                self.wfile.write(chunk)
                if pause:
                    self.wfile.flush()
                    time.sleep(pause)
        except Exception:
            pass

    def log_message(self, *a):
        pass


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
print(s.server_address[1])
sys.stdout.flush()
s.serve_forever()
