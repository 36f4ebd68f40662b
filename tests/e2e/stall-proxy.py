#!/usr/bin/env python3
"""Test servers for network bounds, on 127.0.0.1 with a port chosen by the OS.

  stall-proxy.py silent PORTFILE
      accept connections and never answer; PORTFILE.n holds how many
      connections it accepted
  stall-proxy.py stall PORTFILE UPSTREAM_PORT NBYTES
      forward to 127.0.0.1:UPSTREAM_PORT (a git daemon), but pass only the
      first NBYTES of the server's answer, then keep the connection open and
      silent (a server that stalls mid-pack)

The chosen port is written to PORTFILE. Runs until killed.
"""
import socket
import sys
import threading


def listen():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    return s


def pump(src, dst, limit, counter):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if limit is not None:
                room = limit - counter[0]
                if room <= 0:
                    continue  # swallow: the client sees a stall
                data = data[:room]
                counter[0] += len(data)
            dst.sendall(data)
    except OSError:
        pass


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    s = listen()
    keep = []
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        keep.append(c)
        if mode == "silent":
            with open(portfile + ".n.tmp", "w") as f:
                f.write(str(len(keep)))
            os.rename(portfile + ".n.tmp", portfile + ".n")
            continue
        up = socket.create_connection(("127.0.0.1", int(sys.argv[3])))
        keep.append(up)
        counter = [0]
        threading.Thread(target=pump, args=(c, up, None, None), daemon=True).start()
        threading.Thread(target=pump, args=(up, c, int(sys.argv[4]), counter), daemon=True).start()


if __name__ == "__main__":
    main()
