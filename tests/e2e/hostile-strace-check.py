#!/usr/bin/env python3
"""Check an `strace -f -y -e trace=%file` log of one provenance run: every
path the process opened, stat'ed, read a link of or probed must be inside the
allowed places (the sysroot, the test's temp dir holding the input and the
cache, the tool's shipped mappings, and what the process itself needs: its
shared libraries, the dynamic loader's cache, locale and certificate files,
/proc/self, /dev). Paths named by hostile input must never be touched on the
host, not even by a failed attempt.
  hostile-strace-check.py LOG ROOT TMPDIR TOP EXE FORBIDDEN...
Prints the offending calls and exits 1 when there are any."""
import os, re, subprocess, sys

log, root, tmp, top, exe = sys.argv[1:6]
forbidden = set(os.path.normpath(p) for p in sys.argv[6:])

libs = set()
for line in subprocess.run(['ldd', exe], capture_output=True, text=True).stdout.splitlines():
    m = re.search(r'(/\S+)', line)
    if m:
        libs.add(os.path.basename(m.group(1)))
        libs.add(os.path.basename(os.path.realpath(m.group(1))))

def under(p, d):
    d = d.rstrip('/')
    return p == d or p.startswith(d + '/')

ancestors = set()
for base in (tmp, root):
    p = base
    while p not in ('/', ''):
        ancestors.add(p)
        p = os.path.dirname(p)
ancestors.add('/')

def allowed(p):
    if under(p, root) or under(p, tmp):
        return True
    if under(p, os.path.join(top, 'mappings')) or p in (exe, os.path.realpath(exe), top):
        return True
    if p in ancestors:
        return True
    for d in ('/proc/self', '/proc/thread-self', '/dev', '/sys/devices/system/cpu',
              '/usr/lib/locale', '/usr/share/locale', '/usr/lib/x86_64-linux-gnu/gconv',
              '/etc/ssl', '/usr/lib/ssl', '/usr/share/zoneinfo'):
        if under(p, d):
            return True
    m = re.match(r'^/proc/(\d+)(/|$)', p)
    if m and m.group(1) in pids:	# the traced process's own /proc (sanitizers read it)
        return True
    if p in ('/etc/ld.so.cache', '/etc/ld.so.preload', '/etc/locale.alias', '/etc/localtime',
             '/etc/gitconfig', '/etc/nsswitch.conf', '/etc/gnutls/config'):
        return True
    # the process's own shared libraries, wherever the loader probes for them
    if (under(p, '/lib') or under(p, '/usr/lib') or under(p, '/lib64') or under(p, '/usr/lib64')) \
            and os.path.basename(p) in libs:
        return True
    return False

call_re = re.compile(r'^(\d+)\s+(\w+)\((.*)$')
pids = set(l.split(None, 1)[0] for l in open(log, errors='replace') if l[:1].isdigit())
cwd = {}
bad = []
seen = 0
for line in open(log, errors='replace'):
    m = call_re.match(line)
    if not m:
        continue
    pid, name, rest = m.groups()
    if name == 'execve':
        continue	# the command line itself
    args = rest
    dirbase = None
    dm = re.match(r'(AT_FDCWD|\d+)<([^>]*)>,\s*', args)
    if dm:
        dirbase = dm.group(2)
        args = args[dm.end():]
    elif args.startswith('AT_FDCWD,'):
        args = args[len('AT_FDCWD,'):].lstrip()
    pm = re.match(r'"((?:[^"\\]|\\.)*)"', args)
    if not pm:
        continue
    path = pm.group(1).encode().decode('unicode_escape', errors='replace')
    if path == '' and dirbase:	# fstatat(fd, "", AT_EMPTY_PATH): the fd's file
        path = dirbase
        dirbase = None
    in_root = 'RESOLVE_IN_ROOT' in args
    if in_root and dirbase:
        # the kernel resolves it as a chroot would: inside dirbase
        full = os.path.normpath('/' + path)
        full = os.path.normpath(dirbase + full)
    elif path.startswith('/'):
        full = os.path.normpath(path)
    else:
        base = dirbase or '/'
        full = os.path.normpath(os.path.join(base, path))
    if full.startswith('//'):
        full = full[1:]
    seen += 1
    problems = []
    if not allowed(full):
        problems.append('outside the allowed places: ' + full)
    if full in forbidden:
        problems.append('touches a path named by hostile input: ' + full)
    nofollow = name in ('lstat', 'readlink', 'readlinkat') or 'NOFOLLOW' in args
    if not in_root and not nofollow and under(full, root) and \
            not under(os.path.realpath(full), root):
        problems.append('followed a symlink out of the root: %s -> %s' %
                        (full, os.path.realpath(full)))
    rm = re.search(r'= (\d+)<([^>]*)>\s*$', line)
    if rm:	# what the kernel actually opened
        real = rm.group(2)
        if not allowed(real):
            problems.append('opened ' + real)
        if os.path.normpath(real) in forbidden:
            problems.append('opened a path named by hostile input: ' + real)
    if problems:
        bad.append('%s\n    %s' % (line.rstrip()[:300], '\n    '.join(problems)))
print('checked %d file calls' % seen)
if seen < 10:
    print('too few calls in the log: strace did not trace the run')
    sys.exit(1)
for b in bad:
    print('BAD: ' + b)
sys.exit(1 if bad else 0)
