# make bench, Python row: 64 threads (or argv[1]), each 8 Python calls deep, parked on an
# Event; the main thread then dies in C (ctypes.string_at(0)) under 3 calls.
import ctypes
import sys
import threading

N = int(sys.argv[1]) if len(sys.argv) > 1 else 64
ready = threading.Barrier(N + 1)
stop = threading.Event()


def park(depth):
    if depth:
        return park(depth - 1)
    ready.wait()
    stop.wait()


for i in range(N):
    threading.Thread(target=park, args=(8,), daemon=True).start()
ready.wait()


def c():
    ctypes.string_at(0)


def b():
    c()


def a():
    b()


a()
