#!/usr/bin/env python3
"""Compare an analyze --format json report of an aarch64 core with
gdb-multiarch's view of the same core (the truth):

  check-gdb-aarch64.py REPORT.json GDB.out [--min-frames N] [--threads] [--no-insn]

GDB.out is the output of
  gdb-multiarch -batch -ex 'set sysroot ROOT' -ex 'file EXE' -ex 'core CORE'
      -ex 'thread apply all bt' -ex 'info registers' -ex 'x/i $pc'

Checked: every register gdb prints for the crashing thread among x0-x30, sp,
pc and cpsr (provenance's pstate); the instruction at pc (mnemonic and
operands, immediates compared as numbers; not with --no-insn: a pc
where there is no code); for the crashing thread (every
thread with --threads) each frame gdb prints, in order: its pc where gdb
prints one, its function where gdb names one. Python frames in the report
(language python) have no gdb counterpart and are skipped. Names: C++
return types and argument lists are dropped (gdb prints neither), and
aliases at one address that differ only in leading underscores
(__sched_yield, sched_yield) are the same function. One line per check;
exit 1 at the first disagreement.
"""
import json
import re
import sys

FRAME = re.compile(r'^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(.+?) \(')
THREAD = re.compile(r'^Thread \d+ \((?:Thread 0x[0-9a-f]+ )?\(?LWP (\d+)\)')
REG = re.compile(r'^(x\d+|sp|pc|cpsr)\s+(0x[0-9a-f]+)\s')
INSN = re.compile(r'^=> 0x[0-9a-f]+(?: <[^>]*>)?:\s+(.*)$')


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def ok(msg):
    print('ok: ' + msg)


def parse_gdb(path):
    threads, regs, insn, cur = {}, {}, None, None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = THREAD.match(line)
        if m:
            cur = int(m.group(1))
            threads[cur] = []
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            threads[cur].append((int(m.group(2), 16) if m.group(2) else None, m.group(3)))
            continue
        if not line.startswith('#'):
            cur = None if not line.strip() else cur
        m = REG.match(line)
        if m:
            regs['pstate' if m.group(1) == 'cpsr' else m.group(1)] = int(m.group(2), 16)
            continue
        m = INSN.match(line)
        if m:
            insn = m.group(1)
    return threads, regs, insn


def strip_args(name):
    """'int ns::f<T>(std::vector<T*> const&)' -> 'ns::f<T>'"""
    name = name.strip()
    if name.endswith(')'):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += name[i] == ')'
            depth -= name[i] == '('
            if depth == 0:
                name = name[:i]
                break
    if name.endswith(' const'):
        name = name[:-6]
    depth = 0
    last = -1
    for i, ch in enumerate(name):
        depth += ch == '<'
        depth -= ch == '>'
        if ch == ' ' and depth == 0:
            last = i
    return name[last + 1:] if last >= 0 and '(' not in name[:last] else name


def same_function(mine, gdb):
    if mine is None:
        return False
    a, b = strip_args(mine), strip_args(gdb)
    return a == b or a.lstrip('_') == b.lstrip('_')


def norm_insn(text):
    text = text.split('//')[0].split(';')[0].strip()
    text = re.sub(r'#(-?)(0x[0-9a-f]+|\d+)',
                  lambda m: '#%d' % (int(m.group(2), 0) * (-1 if m.group(1) else 1)), text)
    return re.sub(r'\s+', ' ', text).strip()


def main():
    args = sys.argv[1:]
    min_frames = 2
    all_threads = '--threads' in args
    if '--min-frames' in args:
        min_frames = int(args[args.index('--min-frames') + 1])
    report = json.load(open(args[0]))
    gthreads, gregs, ginsn = parse_gdb(args[1])
    if not gthreads:
        fail('gdb printed no threads')
    mine = {t['tid']: t for t in report['threads']}
    crashed = [t for t in report['threads'] if t['crashed']]
    if not crashed:
        fail('no crashed thread in the report')
    crashed = crashed[0]
    if sorted(mine) != sorted(gthreads):
        fail('threads: report %s, gdb %s' % (sorted(mine), sorted(gthreads)))
    ok('thread ids agree with gdb: %s' % sorted(gthreads))

    regs = {k: int(v, 16) for k, v in (crashed.get('registers') or {}).items()}
    want = ['x%d' % i for i in range(31)] + ['sp', 'pc', 'pstate']
    if len([r for r in want if r in gregs]) < 34:
        fail('gdb printed %d of the 34 registers' % len(gregs))
    for r in want:
        if regs.get(r) != gregs[r]:
            fail('register %s: report %s, gdb 0x%x' % (r, hex(regs[r]) if r in regs else None, gregs[r]))
    ok('x0-x30, sp, pc, pstate agree with gdb (pc 0x%x)' % gregs['pc'])

    cur = [i for i in report.get('instructions') or [] if i.get('current')]
    if '--no-insn' in args:
        pass
    elif not cur:
        fail('no current instruction in the report (%s)' % report.get('instructions_note'))
    elif ginsn is None:
        fail('gdb printed no instruction at pc')
    elif int(cur[0]['address'], 16) != gregs['pc']:
        fail('current instruction at %s, pc 0x%x' % (cur[0]['address'], gregs['pc']))
    elif norm_insn(cur[0]['text']) != norm_insn(ginsn):
        fail("instruction at pc: report '%s', gdb '%s'" % (cur[0]['text'], ginsn))
    else:
        ok("instruction at pc agrees with gdb: '%s'" % norm_insn(ginsn))

    for tid in sorted(gthreads) if all_threads else [crashed['tid']]:
        frames = [f for f in mine[tid]['frames'] if f.get('language') != 'python']
        gframes = gthreads[tid]
        if len(gframes) < min_frames:
            fail('thread %d: gdb printed only %d frames' % (tid, len(gframes)))
        if len(frames) < len(gframes):
            fail('thread %d: %d frames, gdb %d' % (tid, len(frames), len(gframes)))
        named = 0
        for k, (pc, fn) in enumerate(gframes):
            f = frames[k]
            if pc is not None and int(f['pc'], 16) != pc:
                fail('thread %d frame %d: pc %s, gdb 0x%x' % (tid, k, f['pc'], pc))
            if fn != '??':
                if not same_function(f['function'], fn):
                    fail("thread %d frame %d: function '%s', gdb '%s'" % (tid, k, f['function'], fn))
                named += 1
        ok('thread %d: %d frames agree with gdb (%d named: %s)' %
           (tid, len(gframes), named, ' '.join(fn for _, fn in gframes)))


main()
