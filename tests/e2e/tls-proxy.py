#!/usr/bin/env python3
"""A TLS front for a local plain-HTTP test server, on 127.0.0.1.

  tls-proxy.py CERT KEY UPSTREAM-PORT PORTFILE

Each TLS connection (server certificate CERT, its key KEY: PEM files) is
decrypted and its bytes are passed both ways to 127.0.0.1:UPSTREAM-PORT, so
forge-server.py (git http-backend) or endless-refs.py answer over https://
unchanged. The chosen port is written to PORTFILE. Runs until killed.
"""
import os
import select
import socket
import socketserver
import ssl
import sys

CERT, KEY, UPSTREAM, PORTFILE = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(CERT, KEY)


class H(socketserver.BaseRequestHandler):
    def handle(self):
        try:
            tls = ctx.wrap_socket(self.request, server_side=True)
        except (OSError, ssl.SSLError):
            return	# a client that refused our certificate
        up = socket.create_connection(("127.0.0.1", UPSTREAM))
        # one thread per connection, reading and writing each side in turn
        # (an SSL object is not used from two threads at once)
        try:
            while True:
                # bytes TLS already decrypted are not seen by select
                ready = [tls] if tls.pending() else select.select([tls, up], [], [], 60)[0]
                if not ready:
                    break
                if tls in ready:
                    data = tls.recv(65536)
                    if not data:
                        break
                    up.sendall(data)
                if up in ready:
                    data = up.recv(65536)
                    if not data:
                        break
                    tls.sendall(data)
        except (OSError, ssl.SSLError):
            pass
        for s in (tls, up):
            s.close()


class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = S(("127.0.0.1", 0), H)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
