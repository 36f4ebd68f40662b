#!/usr/bin/env python3
"""A cluster job's log as srun/torchrun/kubectl/journald print it (issue 33).

gen-ranks.py [--ranks N] [--odd R,R..] [--segv R,R..] [--cuda R,R..]
             [--prefix torchrun|srun|srun-torchrun|rfc3339|journald|none]
             [--summary] [--truth DIR] [--noise N] > log

Every rank raises ValueError in step() unless named: --cuda ranks raise
RuntimeError (CUDA error) in backward(), --segv ranks die under faulthandler
(Fatal Python error: Segmentation fault), --odd ranks raise KeyError in
load(). Lines of all ranks are interleaved round-robin, as they reach a
shared stderr. --summary adds the launchers' own lines: srun's "srun: error:
HOST: task N: ..." (per task) and torchrun's ChildFailedError table. With
--truth DIR, DIR/<rank>.txt is each rank's own unprefixed text: the truth a
test compares the labelled report of each rank with; DIR/kinds.txt says, one
"RANK KIND HOST TASK" a line, what each rank was made to do (value, odd, cuda,
segv), on which host, under which srun task: the groups a determinism line
must give and what the launcher lines must annotate.
Formats: torchrun's "[rankN]:" (torch.distributed.elastic, --tee/--log-dir),
srun --label "N: ", the two together, kubectl logs --timestamps (RFC 3339,
nanoseconds), journalctl -o short ("Mon DD HH:MM:SS host ident[pid]: ").
"""
import argparse
import os
import sys


def rank_lines(kind, r):
    head = ["Traceback (most recent call last):",
            '  File "/work/train.py", line 88, in <module>',
            "    main()",
            '  File "/work/train.py", line 80, in main',
            "    train(model, loader)"]
    if kind == "value":
        return head + ['  File "/work/train.py", line 61, in train',
                       "    step(model, batch)",
                       '  File "/work/train.py", line 42, in step',
                       '    raise ValueError(f"bad batch size {n}")',
                       "ValueError: bad batch size 0"]
    if kind == "odd":
        return head + ['  File "/work/data.py", line 17, in load',
                       "    return cache[key]",
                       "KeyError: 'shard-%d'" % r]
    if kind == "cuda":
        return head + ['  File "/work/train.py", line 64, in train',
                       "    loss.backward()",
                       '  File "/usr/lib/python3/dist-packages/torch/_tensor.py", line 522, in backward',
                       "    torch.autograd.backward(",
                       "RuntimeError: CUDA error: an illegal memory access was encountered"]
    return ["Fatal Python error: Segmentation fault",
            "",
            "Current thread 0x00007f%010x (most recent call first):" % (0x1000 + r),
            '  File "/work/ext.py", line 9 in crash',
            '  File "/work/train.py", line 42 in step',
            '  File "/work/train.py", line 61 in train',
            '  File "/work/train.py", line 80 in main',
            '  File "/work/train.py", line 88 in <module>']


def prefix(kind, r, i, nodes):
    task = r // 4 if kind == "srun-torchrun" else r
    return {
        "none": "",
        "torchrun": "[rank%d]:" % r,
        "srun": "%d: " % task,
        "srun-torchrun": "%d: [rank%d]:" % (task, r),
        "rfc3339": "2024-05-01T12:%02d:%02d.%09dZ [rank%d]:" % (i // 60 % 60, i % 60, r, r),
        "journald": "May 01 12:00:%02d node%02d python3[%d]: [rank%d]:" % (i % 60, r // 8, 4000 + r, r),
    }[kind]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--odd", default="")
    ap.add_argument("--segv", default="")
    ap.add_argument("--cuda", default="")
    ap.add_argument("--prefix", default="torchrun")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--truth")
    ap.add_argument("--noise", type=int, default=0, help="NCCL INFO lines per rank before its crash")
    a = ap.parse_args()
    pick = lambda s: {int(x) for x in s.split(",") if x}
    odd, segv, cuda = pick(a.odd), pick(a.segv), pick(a.cuda)
    kinds = {r: "segv" if r in segv else "cuda" if r in cuda else "odd" if r in odd else "value"
             for r in range(a.ranks)}
    texts = {r: rank_lines(kinds[r], r) for r in range(a.ranks)}
    noise = {r: ["node%02d:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/IPC" %
                 (r // 8, 4000 + r, 4100 + r, r % 8, k % 32, r, r % 8, (r + 1) % a.ranks, (r + 1) % 8)
                 for k in range(a.noise)] for r in range(a.ranks)}
    if a.truth:
        os.makedirs(a.truth, exist_ok=True)
        for r, t in texts.items():
            with open(os.path.join(a.truth, "%d.txt" % r), "w") as f:
                f.write("\n".join(t) + "\n")
        with open(os.path.join(a.truth, "kinds.txt"), "w") as f:
            for r in range(a.ranks):
                f.write("%d %s node%02d %d\n" % (r, kinds[r], r // 8, r // 4 if a.prefix == "srun-torchrun" else r))
    out = sys.stdout
    i = 0
    texts = {r: noise[r] + texts[r] for r in texts}
    longest = max(len(t) for t in texts.values())
    for k in range(longest):
        for r in range(a.ranks):
            if k < len(texts[r]):
                p = prefix(a.prefix, r, i, a.ranks)
                line = texts[r][k]
                # "[rank0]: " then the line as printed (its own indentation)
                out.write(p + (" " if p.endswith(":") else "") + line + "\n")
                i += 1
    if not a.summary:
        return
    for r in range(a.ranks):
        if kinds[r] == "segv":
            out.write("srun: error: node%02d: task %d: Segmentation fault (core dumped)\n" % (r // 8, r))
        else:
            out.write("srun: error: node%02d: task %d: Exited with exit code 1\n" % (r // 8, r))
    out.write("Traceback (most recent call last):\n")
    out.write('  File "/usr/bin/torchrun", line 8, in <module>\n')
    out.write("    sys.exit(main())\n")
    out.write("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
    out.write("=" * 60 + "\ntrain.py FAILED\n" + "-" * 60 + "\nFailures:\n")
    first = True
    for r in range(a.ranks):
        if first:
            out.write("-" * 60 + "\nRoot Cause (first observed failure):\n")
            first = False
        code = -11 if kinds[r] == "segv" else 1
        out.write("[%d]:\n" % r)
        out.write("  time      : 2024-05-01_12:00:05\n")
        out.write("  host      : node%02d\n" % (r // 8))
        out.write("  rank      : %d (local_rank: %d)\n" % (r, r % 8))
        out.write("  exitcode  : %d (pid: %d)\n" % (code, 4000 + r))
        out.write("  error_file: %s\n" % ("<N/A>" if code < 0 else "/tmp/torchelastic_x/none_/attempt_0/%d/error.json" % r))
        out.write("  traceback : %s\n" % ("Signal 11 (SIGSEGV) received by PID %d" % (4000 + r) if code < 0 else
                                        "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"))
    out.write("=" * 60 + "\n")


main()
