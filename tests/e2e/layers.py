#!/usr/bin/env python3
"""The layers of the C sources, checked from the #include lines alone.

    tests/e2e/layers.py [--root DIR] [--no-layers] [--stats]

Reads every `#include "..."` of the .c and .h files in src/, cache/ and
resolvers/ and checks:

  headers   header names are unique across the project (they are included
            by bare name: "cache.h", never "cache/cache.h");
  cycles    no include cycle between files (a .c and its own .h are one
            node) and none between folders;
  layers    no folder includes a header of a layer above it, nor of a peer:
            the order is the Makefile's LAYERS (bottom first); core and text
            are peers. Every include must also
            be one the folder's INC_<layer> in the Makefile allows, and every
            INC_<layer> must allow only its own layer and those below it;
  docs      comments and docs name only files of this repository: no
            "../shared", "shared/docs", "shared/seeds" in src/, cache/,
            resolvers/, docs/ (but docs/benchmarks.md) and README.md, and no
            path of a project source (src/..., cache/..., resolvers/...) that
            does not exist, as a file moved without its mentions would leave;
            the layer tables of docs/HACKING.md and docs/architecture.md
            list the folders in the order of the Makefile's LAYERS; every .c
            is named in docs/architecture.md (its path, or its name in the
            section of its folder, "### `src/util/`"); every function a doc
            names exists (see FUNC_SPAN);
  size      no .c over MAX_FILE_LINES lines, no function over
            MAX_FUNC_LINES (from the line that names it to its closing
            brace, in the kernel style: "{" and "}" alone at column 0).

--no-layers checks headers and cycles only (a tree from before the layer
folders, to measure). --stats prints files per folder and the cycles found.
Prints one line per problem; exit 1 when there is any, else 0.
"""
import os
import re
import sys

# Peers: the same height, neither may include the other (docs/HACKING.md).
PEERS = [{"core", "text"}]
CODE_DIRS = ["src", "cache", "resolvers"]
DOC_PLACES = ["src", "cache", "resolvers", "docs", "README.md"]
DOC_EXEMPT = {"docs/benchmarks.md"}	# may name the team's external corpus
OUTSIDE = re.compile(r"\.\./shared|shared/docs|shared/seeds")
SRC_PATH = re.compile(r"(?<![\w./-])((?:src|cache|resolvers)/[\w./-]*\w\.[ch])\b")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# A function a doc names (outside ``` blocks) is a code span that starts with
# a name: `foo`, `foo()`, `foo[]` or `foo(args)`. In README.md and every
# docs/*.md, the names with the project's prefixes prov_, tp_ and cmd_ (the
# other pages also name other projects' functions); they must occur in the C
# code of src/, cache/ or resolvers/ outside comments. In the pages about the
# code, CODE_DOCS, also every other lower-case name with an underscore
# (`report_text_body`); those may also be test helpers (tests/, fuzz/:
# `assert_ok`). Names with an upper-case letter or the word "thing" are
# placeholders (`cmd_NAME`, `prov_thing_verb`), like a lone prefix (`tp_`).
FUNC_SPAN = re.compile(r"(?<![`\w])`([a-z]\w*[a-z0-9])(?=`|\(|\[\])")
OWN_NAME = re.compile(r"(?:prov|tp|cmd)_\w+$")
FUNC_DOCS = ["README.md", "docs"]
CODE_DOCS = {"docs/HACKING.md", "docs/architecture.md"}
HELPER_DIRS = ["tests", "fuzz"]
MAX_FILE_LINES = 1500
MAX_FUNC_LINES = 200

problems = []


def problem(msg):
    problems.append(msg)
    print(msg)


def source_files(root):
    out = []
    for top in CODE_DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def resolve(root, rel, name, headers):
    """The project file an include names, or None."""
    if "/" in name:
        for base in (os.path.dirname(rel), "", "src"):
            cand = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(os.path.join(root, cand)):
                return cand
    paths = headers.get(os.path.basename(name), [])
    return paths[0] if len(paths) == 1 else None


def node(rel):
    return os.path.splitext(rel)[0]


def sccs(graph):
    """Tarjan: the strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # iterative, so a deep include chain cannot overflow the recursion
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    pushed = True
                    break
                if w in on:
                    low[u] = min(low[u], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[u])
            if low[u] == index[u]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == u:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def one_cycle(graph, comp):
    """A shortest cycle through the first node of comp, for the message."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        u = queue.pop(0)
        for w in sorted(graph.get(u, ())):
            if w not in members:
                continue
            if w == start:
                path = [u]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = u
                queue.append(w)
    return comp


def makefile_layers(root):
    """LAYERS, the folder of each layer, and the folders each INC_ allows."""
    text = read(root, "Makefile").replace("\\\n", " ")
    m = re.search(r"^LAYERS\s*=\s*(.*)$", text, re.M)
    if not m:
        return None, None, None
    layers = m.group(1).split()
    inc = {}
    for m in re.finditer(r"^INC_(\w+)\s*=\s*(.*)$", text, re.M):
        inc[m.group(1)] = m.group(2).split()
    folder = {}
    for m in re.finditer(r"^(\S+)/%\.o:\s*LAYER_INC\s*=\s*\$\(INC_(\w+)\)", text, re.M):
        folder[m.group(2)] = m.group(1)

    def expand(name, seen=()):
        out = []
        for tok in inc.get(name, []):
            r = re.match(r"\$\(INC_(\w+)\)$", tok)
            if r and r.group(1) not in seen:
                out += expand(r.group(1), seen + (name,))
            elif tok.startswith("-I"):
                out.append(os.path.normpath(tok[2:]))
        return out

    allowed = {lay: set(expand(lay)) for lay in layers}
    return layers, folder, allowed


def check_layers(root, files, edges):
    layers, folder, allowed = makefile_layers(root)
    if not layers:
        problem("Makefile: no LAYERS variable")
        return
    layer_of = {f: lay for lay, f in folder.items()}
    height = {lay: i for i, lay in enumerate(layers)}
    for lay in layers:
        if lay not in folder:
            problem("Makefile: layer '%s' has no '<folder>/%%.o: LAYER_INC = $(INC_%s)' rule"
                    % (lay, lay))
    for group in PEERS:
        hs = sorted(height.get(x, -9) for x in group)
        if hs[-1] - hs[0] != len(group) - 1:
            problem("Makefile: LAYERS does not list the peers %s side by side"
                    % " and ".join(sorted(group)))

    def may_include(a, b):
        if a == b:
            return True
        if any(a in g and b in g for g in PEERS):
            return False
        return height[b] < height[a]

    # what the Makefile lets each folder see must agree with the order
    for lay in layers:
        for d in sorted(allowed.get(lay, ())):
            other = layer_of.get(d)
            if other is None:
                problem("Makefile: INC_%s names -I%s, which is no layer's folder" % (lay, d))
            elif not may_include(lay, other):
                problem("Makefile: INC_%s lets %s see %s (layer '%s' is not below '%s')"
                        % (lay, folder[lay], d, other, lay))
    for f in files:
        if os.path.dirname(f) not in layer_of:
            problem("%s: folder '%s' is in no layer (Makefile LAYERS and LAYER_INC rules)"
                    % (f, os.path.dirname(f)))
    for (src, hdr) in sorted(edges):
        a, b = layer_of.get(os.path.dirname(src)), layer_of.get(os.path.dirname(hdr))
        if a is None or b is None:
            continue
        if not may_include(a, b):
            why = "a peer" if any(a in g and b in g for g in PEERS) else "a higher layer"
            problem("%s: includes %s, %s ('%s' may not include '%s')"
                    % (src, hdr, why, a, b))
        elif os.path.dirname(hdr) not in allowed.get(a, ()):
            problem("%s: includes %s, which the Makefile's INC_%s does not allow"
                    % (src, hdr, a))


def check_docs(root, files):
    places = []
    for p in DOC_PLACES:
        full = os.path.join(root, p)
        if os.path.isfile(full):
            places.append(p)
            continue
        for d, dirs, fs in os.walk(full):
            dirs[:] = sorted(x for x in dirs if not x.startswith("."))
            for f in sorted(fs):
                if f.endswith((".c", ".h", ".md", ".1", ".txt", ".map")):
                    places.append(os.path.relpath(os.path.join(d, f), root))
    names = {os.path.basename(f) for f in files}
    for p in places:
        if p in DOC_EXEMPT:
            continue
        for n, line in enumerate(read(root, p).split("\n"), 1):
            m = OUTSIDE.search(line)
            if m:
                problem("%s:%d: names '%s', which is outside the repository" % (p, n, m.group(0)))
            for m in SRC_PATH.finditer(line):
                path = m.group(1)
                if os.path.basename(path) in names and not os.path.exists(os.path.join(root, path)):
                    problem("%s:%d: names '%s', which does not exist" % (p, n, path))


def layer_tables(root, layers, folder):
    """Each doc's layer table lists the folders in the order of LAYERS."""
    want = [folder.get(lay, "?") for lay in layers]
    for doc, heading in (("docs/HACKING.md", "## Layers"), ("docs/architecture.md", "## The layers")):
        if not os.path.isfile(os.path.join(root, doc)):
            problem("%s: missing (it carries the layer table)" % doc)
            continue
        got, inside = [], False
        for line in read(root, doc).split("\n"):
            if line.startswith("## "):
                inside = line.startswith(heading)
                continue
            if not inside or not line.startswith("|"):
                continue
            for cell in line.split("|")[1:]:
                dirs = re.findall(r"`((?:src/)?\w+)/`", cell)
                if dirs:
                    got += dirs
                    break
        if got != want:
            problem("%s: the layer table under '%s' lists %s, the Makefile's LAYERS %s"
                    % (doc, heading, " ".join(got) or "nothing", " ".join(want)))


def check_named(root, files):
    """Every .c is named in docs/architecture.md."""
    doc = "docs/architecture.md"
    text = read(root, doc) if os.path.isfile(os.path.join(root, doc)) else ""
    sections = {}
    cur = None
    for line in text.split("\n"):
        m = re.match(r"###\s+`([\w/]+?)/?`", line)
        if line.startswith("#"):
            cur = m.group(1) if m else None
            continue
        if cur:
            sections[cur] = sections.get(cur, "") + line + "\n"
    for f in files:
        if not f.endswith(".c"):
            continue
        d, base = os.path.split(f)
        if re.search(r"(?<![\w./-])" + re.escape(f) + r"(?![\w-])", text):
            continue
        if re.search(r"(?<![\w./-])" + re.escape(base) + r"(?![\w-])", sections.get(d, "")):
            continue
        problem("%s: not named in %s (its section '### `%s/`')" % (f, doc, d))


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def check_doc_functions(root, files):
    """Every function a doc names exists in the code."""
    code, helpers = set(), set()
    for f in files:
        code.update(re.findall(r"\w+", strip_comments(read(root, f))))
    for top in HELPER_DIRS:
        for d, dirs, fs in os.walk(os.path.join(root, top)):
            # tests/debs holds unpacked Debian roots (device nodes, FIFOs): not helpers
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in ("out", "debs"))
            for f in fs:
                if not f.endswith((".c", ".h", ".sh", ".py")) or \
                        not os.path.isfile(os.path.join(d, f)):
                    continue
                text = read(root, os.path.relpath(os.path.join(d, f), root))
                if f.endswith((".c", ".h")):
                    helpers.update(re.findall(r"\w+", strip_comments(text)))
                elif f.endswith((".sh", ".py")):
                    helpers.update(re.findall(r"\w+", re.sub(r"#[^\n]*", " ", text)))
    docs = []
    for p in FUNC_DOCS:
        full = os.path.join(root, p)
        if os.path.isfile(full):
            docs.append(p)
        elif os.path.isdir(full):
            docs += sorted(os.path.join(p, f) for f in os.listdir(full) if f.endswith(".md"))
    for p in docs:
        fenced = False
        for n, line in enumerate(read(root, p).split("\n"), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            for name in FUNC_SPAN.findall(line):
                own = OWN_NAME.match(name)
                if re.search(r"[A-Z]", name) or "thing" in name.split("_"):
                    continue
                if not (own or p in CODE_DOCS and "_" in name):
                    continue
                if name not in code and (own or name not in helpers):
                    problem("%s:%d: names `%s`, which is nowhere in the code" % (p, n, name))


def functions(text):
    """(name, first line, lines) of each function of a kernel-style .c file."""
    lines = text.split("\n")
    out, start = [], None
    for i, line in enumerate(lines):
        if line == "{":
            name, first = "?", i
            for j in range(i - 1, max(-1, i - 12), -1):
                m = re.match(r"[A-Za-z_].*?\b(\w+)\s*\(", lines[j])
                if m:
                    name, first = m.group(1), j
                    break
            start = (name, first)
        elif line.startswith("}") and start:
            out.append((start[0], start[1] + 1, i - start[1] + 1))
            start = None
    return out


def check_sizes(root, files):
    for f in files:
        if not f.endswith(".c"):
            continue
        text = read(root, f)
        n = text.count("\n")
        if n > MAX_FILE_LINES:
            problem("%s: %d lines, over %d (cut it along its seams)" % (f, n, MAX_FILE_LINES))
        for name, first, length in functions(text):
            if length > MAX_FUNC_LINES:
                problem("%s:%d: function %s is %d lines, over %d"
                        % (f, first, name, length, MAX_FUNC_LINES))


def main(argv):
    root = "."
    layered = True
    stats = False
    i = 1
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 1
        elif argv[i] == "--no-layers":
            layered = False
        elif argv[i] == "--stats":
            stats = True
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 64
        i += 1

    files = source_files(root)
    headers = {}
    for f in files:
        if f.endswith(".h"):
            headers.setdefault(os.path.basename(f), []).append(f)
    for name, paths in sorted(headers.items()):
        if len(paths) > 1:
            problem("header name '%s' is not unique: %s" % (name, ", ".join(paths)))

    edges = set()
    for f in files:
        for name in INCLUDE.findall(read(root, f)):
            target = resolve(root, f, name, headers)
            if target is None:
                problem("%s: includes \"%s\", which is no header of the project" % (f, name))
            else:
                edges.add((f, target))

    graph, fgraph = {}, {}
    for f in files:
        graph.setdefault(node(f), set())
        fgraph.setdefault(os.path.dirname(f), set())
    for (a, b) in edges:
        if node(a) != node(b):
            graph[node(a)].add(node(b))
        if os.path.dirname(a) != os.path.dirname(b):
            fgraph[os.path.dirname(a)].add(os.path.dirname(b))
    cycles = sccs(graph)
    fcycles = sccs(fgraph)
    for comp in cycles:
        problem("include cycle between files: %s (all of: %s)"
                % (" -> ".join(one_cycle(graph, comp)), ", ".join(comp)))
    for comp in fcycles:
        problem("include cycle between folders: %s (all of: %s)"
                % (" -> ".join(one_cycle(fgraph, comp)), ", ".join(comp)))

    if layered:
        check_layers(root, files, edges)
        check_docs(root, files)
        layers, folder, _ = makefile_layers(root)
        if layers:
            layer_tables(root, layers, folder)
        check_named(root, files)
        check_doc_functions(root, files)
        check_sizes(root, files)

    if stats:
        per = {}
        for f in files:
            per.setdefault(os.path.dirname(f), [0, 0])[f.endswith(".h")] += 1
        print("folder                 .c   .h")
        for d in sorted(per):
            print("%-20s %4d %4d" % (d, per[d][0], per[d][1]))
        print("files %d, includes %d, file cycles %d, folder cycles %d"
              % (len(files), len(edges), len(cycles), len(fcycles)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
