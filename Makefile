# provenance: which source was running when it crashed, and is the fix in it.
#
# Targets:
#   make            build ./provenance; installs nothing (says what is missing)
#   make deps       install the Debian packages the build and tests need (root),
#                   download the packages and the arm64 root the tests unpack
#   make check      make deps, build and run every test (unit + end-to-end)
#   make demo       make deps, crash a bundled program and resolve its core (offline)
#   make bench      time provenance against eu-stack and gdb (not a test)
#   make fuzz       build the libFuzzer targets (clang); make check-fuzz runs them briefly
#   make install    install the program, mappings, man page and completion to
#                   $(DESTDIR)$(PREFIX) (nothing else); make uninstall removes them
#
# Knobs:
#   V=1                         show the commands
#   DEVELOPER=1                 warnings are errors
#   SANITIZE=address,undefined  build with sanitizers (tests too)
#   PREFIX=/usr/local DESTDIR=  install location (a new PREFIX rebuilds mapping.o only)
#   CC=gcc CFLAGS=-O2 -g        compiler and optimisation
#   NO_DEPS=1                   never install or download (make deps only checks)

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
VERSION := 0.1.0

bindir = $(PREFIX)/bin
datadir = $(PREFIX)/share/provenance
mandir = $(PREFIX)/share/man
bashcompdir = $(PREFIX)/share/bash-completion/completions
zshcompdir = $(PREFIX)/share/zsh/site-functions

PKGS = libdw libelf libgit2 libarchive sqlite3 libpq libcurl libdebuginfod capstone libzstd libmicrohttpd libsystemd
# squashfs images as --sysroot (enroot .sqsh, Apptainer .sif: src/image/image-squashfs.c);
# loaded on first use, like libarchive (LAZY_PKGS)
PKGS += libsquashfs1
# cargo-auditable's .dep-v0 is zlib-compressed (resolvers/kit-cargo.c)
PKGS += zlib
TEST_PKGS = cmocka

# Debian packages: libraries, the tools the tests compare against, and the
# tools the tests use to build fixtures (rpm databases, compressed cores).
DEB_PACKAGES = pkg-config libdw-dev libelf-dev libasm-dev libdebuginfod-dev \
	elfutils debuginfod libgit2-dev libarchive-dev libsqlite3-dev \
	libcurl4-openssl-dev libpq-dev libzstd-dev postgresql slurm-wlm munge libcmocka-dev libcapstone-dev binutils-dev python3-jsonschema gdb git rpm zstd lz4 xz-utils gzip \
	python3 file dpkg-dev python3.11 python3.11-dbg binutils valgrind python3-numpy strace time \
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user gdb-multiarch debootstrap openssl \
	libmicrohttpd-dev chromium
# import --journal reads systemd-coredump's entries with sd-journal (libsystemd,
# loaded on first use); its test writes a journal file with systemd-journal-remote
DEB_PACKAGES += libsystemd-dev systemd-journal-remote
# Go programs built at test time (tests/e2e/t-go.sh: .go.buildinfo, .gopclntab)
DEB_PACKAGES += golang-go
# zlib for .dep-v0 (already pulled in by libelf-dev; named for the build);
# Debian's rustc builds the Rust program of tests/e2e/t-cargo-auditable.sh
DEB_PACKAGES += zlib1g-dev rustc
# a real Go program's core (tests/e2e/t-go-restic.sh): Debian's restic is
# stripped and externally linked (cgo), unlike anything go build makes here
DEB_PACKAGES += restic
# squashfs images as --sysroot: libsquashfs (squashfs-tools-ng) reads them; its
# gensquashfs packs the test roots (tests/e2e/t-image-squashfs.sh)
DEB_PACKAGES += libsquashfs-dev squashfs-tools-ng
# mksquashfs leaves every table uncompressed (-noI -noD -noF -noX), so the test
# can patch a name into '..' for the hostile images
DEB_PACKAGES += squashfs-tools
# Real Debian packages the tests unpack into roots they build (not installed):
# downloaded by `make deps` into tests/debs/ (apt-get download).
DEB_DOWNLOADS = libamdhip64-5
DEB_COMMANDS = pkg-config eu-stack eu-unstrip gdb git rpm rpmbuild zstd lz4 xz \
	gzip python3 dpkg-source python3.11 python3.11-dbg addr2line valgrind strace /usr/bin/time psql \
	/usr/lib/postgresql/15/bin/initdb /usr/lib/postgresql/15/bin/pg_ctl srun sbatch slurmctld slurmd munged \
	aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64 gdb-multiarch debootstrap openssl chromium
DEB_COMMANDS += go restic
DEB_COMMANDS += /usr/bin/rustc
DEB_COMMANDS += /lib/systemd/systemd-journal-remote
DEB_COMMANDS += gensquashfs mksquashfs

ifeq ($(V),1)
Q =
QUIET_CC =
QUIET_LINK =
else
Q = @
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
endif

WARNINGS = -Wall -Wextra -Wformat=2 -Wshadow -Wpointer-arith -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wvla -Wwrite-strings
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif

SAN_FLAGS =
ifneq ($(SANITIZE),)
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl and libdebuginfod, libarchive, libpq, capstone and libopcodes are
# (and libsquashfs) loaded on first use (src/util/lazylib.c): their headers only, so that a run
# that downloads, decompresses, stores in PostgreSQL and disassembles nothing
# does not load them (start-up, docs/benchmarks.md)
LAZY_PKGS = libcurl libdebuginfod libarchive libpq capstone libsystemd libsquashfs1
# the sonames lazylib.c loads: those of the libraries that would be linked here
lazy_soname = $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | awk '/SONAME/ { print $$2 }')
SONAME_DEFS := $(foreach l,pq archive capstone opcodes squashfs,$(if $(call lazy_soname,$(l)),-DSONAME_$(shell echo $(l) | tr a-z A-Z)='"$(call lazy_soname,$(l))"'))
src/util/lazylib.o: ALL_CFLAGS += $(SONAME_DEFS)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(filter-out $(LAZY_PKGS),$(PKGS)) 2>/dev/null)
TEST_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS = $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)

ALL_CFLAGS = -std=gnu11 $(CFLAGS) $(WARNINGS) $(SAN_FLAGS) -D_GNU_SOURCE \
	-DPROV_VERSION='"$(VERSION)"' $(LAYER_INC) $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SAN_FLAGS)
LIBS = $(PKG_LIBS) -lasm -lpthread

PROGRAM = provenance

# One folder per layer (docs/architecture.md), listed from the bottom up.
# A layer sees its own headers and those of the layers below it, and no
# others: an include that goes up does not compile (docs/HACKING.md).
LAYERS = util image model cache resolvers core text sources components fix report pipeline cli

INC_util       = -Isrc/util
INC_image      = $(INC_util) -Isrc/image
INC_model      = $(INC_util) -Isrc/model
INC_cache      = $(INC_model) -Icache
INC_resolvers  = $(INC_cache) -Iresolvers
INC_core       = $(INC_model) -Isrc/core
INC_text       = $(INC_model) -Isrc/text
INC_sources    = $(INC_cache) -Isrc/sources
INC_components = $(INC_sources) -Isrc/components
INC_fix        = $(INC_sources) -Isrc/fix
INC_report     = $(INC_model) -Isrc/report
INC_pipeline   = $(INC_resolvers) -Isrc/image -Isrc/core -Isrc/text -Isrc/sources -Isrc/components \
	-Isrc/fix -Isrc/report -Isrc/pipeline
INC_cli        = $(INC_pipeline) -Isrc/cli
# unit tests and fuzz targets see every layer
INC_all        = $(INC_cli)

src/util/%.o:       LAYER_INC = $(INC_util)
src/image/%.o:      LAYER_INC = $(INC_image)
src/model/%.o:      LAYER_INC = $(INC_model)
cache/%.o:          LAYER_INC = $(INC_cache)
resolvers/%.o:      LAYER_INC = $(INC_resolvers)
src/core/%.o:       LAYER_INC = $(INC_core)
src/text/%.o:       LAYER_INC = $(INC_text)
src/sources/%.o:    LAYER_INC = $(INC_sources)
src/components/%.o: LAYER_INC = $(INC_components)
src/fix/%.o:        LAYER_INC = $(INC_fix)
src/report/%.o:     LAYER_INC = $(INC_report)
src/pipeline/%.o:   LAYER_INC = $(INC_pipeline)
src/cli/%.o:        LAYER_INC = $(INC_cli)

# util: allocation, buffers, errors, JSON, config, hashing, input files.
LIB_OBJS += src/util/alloc.o
LIB_OBJS += src/util/buf.o
LIB_OBJS += src/util/error.o
LIB_OBJS += src/util/util.o
LIB_OBJS += src/util/json.o
LIB_OBJS += src/util/jsonread.o
LIB_OBJS += src/util/config.o
LIB_OBJS += src/util/cfgparse.o
LIB_OBJS += src/util/sha256.o
LIB_OBJS += src/util/lazylib.o
LIB_OBJS += src/util/input.o
LIB_OBJS += src/util/srcdefs.o
LIB_OBJS += src/util/udiff.o
LIB_OBJS += src/util/cachedir.o

# image: container images as --sysroot, unpacked into the cache (docs/containers.md).
LIB_OBJS += src/image/image.o
LIB_OBJS += src/image/image-layer.o
LIB_OBJS += src/image/image-squashfs.o
LIB_OBJS += src/image/image-sif.o
LIB_OBJS += src/image/image-cache.o
LIB_OBJS += src/image/image-lazy.o
LIB_OBJS += src/image/image-lazy-index.o

# model: the crash model, its signature, crash patterns, build paths.
LIB_OBJS += src/model/model.o
LIB_OBJS += src/model/signature.o
LIB_OBJS += src/model/fixresult.o
LIB_OBJS += src/model/patterns.o
LIB_OBJS += src/model/stlrace.o
LIB_OBJS += src/model/buildpath.o
LIB_OBJS += src/model/hang.o

# cache: the only code that talks to SQLite.
LIB_OBJS += cache/cache.o
LIB_OBJS += cache/cache-memo.o
LIB_OBJS += cache/cache-files.o
LIB_OBJS += cache/sqlite-helpers.o
LIB_OBJS += cache/sqlite-guard.o
LIB_OBJS += cache/defs.o
LIB_OBJS += cache/store.o
LIB_OBJS += cache/store-common.o
LIB_OBJS += cache/store-lifecycle.o
LIB_OBJS += cache/store-schema.o
LIB_OBJS += cache/store-report.o
LIB_OBJS += cache/store-sqlite.o
LIB_OBJS += cache/store-pg.o

# resolvers: the chain (registry), one file per origin kind, the kit of helpers they share.
LIB_OBJS += resolvers/registry.o
LIB_OBJS += resolvers/elf-note.o
LIB_OBJS += resolvers/dpkg.o
LIB_OBJS += resolvers/rpm.o
LIB_OBJS += resolvers/pip.o
LIB_OBJS += resolvers/conda.o
LIB_OBJS += resolvers/rocm.o
LIB_OBJS += resolvers/git.o
LIB_OBJS += resolvers/go-buildinfo.o
LIB_OBJS += resolvers/cargo-auditable.o
LIB_OBJS += resolvers/python.o
LIB_OBJS += resolvers/path.o
LIB_OBJS += resolvers/kit-origin.o
LIB_OBJS += resolvers/kit-text.o
LIB_OBJS += resolvers/kit-root.o
LIB_OBJS += resolvers/kit-index.o
LIB_OBJS += resolvers/kit-elf.o
LIB_OBJS += resolvers/kit-python.o
LIB_OBJS += resolvers/kit-rpm-header.o
LIB_OBJS += resolvers/kit-cargo.o
LIB_OBJS += resolvers/kit-upstream.o

# core: cores and live processes (libdwfl), Python frames, variables, code.
LIB_OBJS += src/core/gopclntab.o
LIB_OBJS += src/core/core.o
LIB_OBJS += src/core/core-ctx.o
LIB_OBJS += src/core/core-read.o
LIB_OBJS += src/core/core-finish.o
LIB_OBJS += src/core/core-notes.o
LIB_OBJS += src/core/core-find.o
LIB_OBJS += src/core/core-modules.o
LIB_OBJS += src/core/core-frames.o
LIB_OBJS += src/core/core-sigframe.o
LIB_OBJS += src/core/core-unwind.o
LIB_OBJS += src/core/core-leaf.o
LIB_OBJS += src/core/core-linkmap.o
LIB_OBJS += src/core/core-pid.o
LIB_OBJS += src/core/corevars.o
LIB_OBJS += src/core/core-python.o
LIB_OBJS += src/core/python.o
LIB_OBJS += src/core/python-offsets.o
LIB_OBJS += src/core/ptrace-stop.o
LIB_OBJS += src/core/dbgbudget.o
LIB_OBJS += src/core/dbgsrc.o
LIB_OBJS += src/core/disasm.o
LIB_OBJS += src/core/modsym.o
LIB_OBJS += src/core/plaindebug.o
LIB_OBJS += src/core/code.o

# text: backtraces pasted as text.
LIB_OBJS += src/text/driver.o
LIB_OBJS += src/text/formats.o
LIB_OBJS += src/text/state.o
LIB_OBJS += src/text/lines.o
LIB_OBJS += src/text/prefix.o
LIB_OBJS += src/text/labels.o
LIB_OBJS += src/text/native.o
LIB_OBJS += src/text/sanitizer.o
LIB_OBJS += src/text/python.o
LIB_OBJS += src/text/selfprinted.o
LIB_OBJS += src/text/valgrind.o
LIB_OBJS += src/text/cudasan.o
LIB_OBJS += src/text/kernel.o

# sources: libgit2 mirrors, downloads, source-package imports, history.
LIB_OBJS += src/sources/sources.o
LIB_OBJS += src/sources/repo.o
LIB_OBJS += src/sources/bounded.o
LIB_OBJS += src/sources/ancestry.o
LIB_OBJS += src/sources/blobs.o
LIB_OBJS += src/sources/commits.o
LIB_OBJS += src/sources/fetch.o
LIB_OBJS += src/sources/forge.o
LIB_OBJS += src/sources/gitstream.o
LIB_OBJS += src/sources/hostdown.o
LIB_OBJS += src/sources/lsremote.o
LIB_OBJS += src/sources/srcimport.o
LIB_OBJS += src/sources/srcimport-quilt.o
LIB_OBJS += src/sources/srcimport-deb.o
LIB_OBJS += src/sources/srclocate.o
LIB_OBJS += src/sources/suspects.o

# components: mappings, path rewriting, modules to components and commits.
LIB_OBJS += src/components/mapping.o
LIB_OBJS += src/components/pathrw.o
LIB_OBJS += src/components/components.o
LIB_OBJS += src/components/derive.o

# fix: is a fix in the deployed build, and how.
LIB_OBJS += src/fix/backport.o
LIB_OBJS += src/fix/rpmspec.o
LIB_OBJS += src/fix/fixstatus.o
LIB_OBJS += src/fix/hunks.o
LIB_OBJS += src/fix/hunks-match.o
LIB_OBJS += src/fix/hunks-compare.o
LIB_OBJS += src/fix/hunks-rewrap.o
LIB_OBJS += src/fix/dep3.o
LIB_OBJS += src/fix/fixeffect.o
LIB_OBJS += src/fix/fixlocate.o
LIB_OBJS += src/fix/fixevidence.o
LIB_OBJS += src/fix/distpatches.o
LIB_OBJS += src/fix/renames.o

# report: text, Markdown and JSON writers (read the model only).
LIB_OBJS += src/report/report-json.o
LIB_OBJS += src/report/report-load.o
LIB_OBJS += src/report/report-text.o
LIB_OBJS += src/report/report-md.o
LIB_OBJS += src/report/report-resolve.o
LIB_OBJS += src/report/report-fixcheck.o
LIB_OBJS += src/report/report-env.o
LIB_OBJS += src/report/report-triage.o
LIB_OBJS += src/report/report-hang.o
LIB_OBJS += src/report/web-escape.o
LIB_OBJS += src/report/web-md.o
LIB_OBJS += src/report/web-route.o
LIB_OBJS += src/report/web-pages.o

# pipeline: input to model, every stage, in one place.
LIB_OBJS += src/pipeline/pipeline.o
LIB_OBJS += src/pipeline/kernelmod.o
LIB_OBJS += src/pipeline/batch.o
LIB_OBJS += src/pipeline/fixcheck.o
LIB_OBJS += src/pipeline/collect.o
LIB_OBJS += src/pipeline/collect-keep.o
LIB_OBJS += src/pipeline/journal.o

# cli: main, the command table, one file per command.
CMD_OBJS += src/cli/main.o
CMD_OBJS += src/cli/cmd-common.o
CMD_OBJS += src/cli/cmd-analyze.o
CMD_OBJS += src/cli/cmd-resolve.o
CMD_OBJS += src/cli/cmd-env.o
CMD_OBJS += src/cli/cmd-fixcheck.o
CMD_OBJS += src/cli/cmd-cache.o
CMD_OBJS += src/cli/cmd-import.o
CMD_OBJS += src/cli/cmd-show.o
CMD_OBJS += src/cli/cmd-prune.o
CMD_OBJS += src/cli/cmd-mark.o
CMD_OBJS += src/cli/cmd-triage.o
CMD_OBJS += src/cli/cmd-query.o
CMD_OBJS += src/cli/cmd-collect.o
CMD_OBJS += src/cli/cmd-serve.o

LIB = libprovenance.a

UNIT_TESTS = $(patsubst %.c,%,$(wildcard tests/unit/test-*.c))

all:: $(PROGRAM)

$(PROGRAM): $(CMD_OBJS) $(LIB)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(LIB) $(LIBS)

$(LIB): $(LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $(LIB_OBJS)

%.o: %.c
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

tests/unit/test-%: tests/unit/test-%.c tests/unit/unit.h $(LIB)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(INC_all) $(TEST_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LIBS) $(TEST_LIBS)

# A build with different flags must not reuse objects from another.
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)
.build-flags: FORCE
	$(Q)echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@
$(LIB_OBJS) $(CMD_OBJS): .build-flags

# The data directory is compiled into one object only (where the shipped
# mappings are found), so a new PREFIX rebuilds that object and not the rest.
# private: .build-flags, its prerequisite, must not inherit the flag.
src/components/mapping.o: private ALL_CFLAGS += -DPROV_DATADIR='"$(datadir)"'
src/components/mapping.o: .build-datadir
.build-datadir: FORCE
	$(Q)echo '$(datadir)' | cmp -s - $@ || echo '$(datadir)' > $@

# What the build needs, checked before compiling (fast: pkg-config and two
# headers; not the tools the tests use): one line naming what is missing.
# Targets that run `make deps` check after it.
DEPS_GOALS = deps check check-unit demo bench fuzz check-fuzz
build-needs: $(if $(filter $(DEPS_GOALS),$(MAKECMDGOALS)),deps)
	$(Q)missing=""; \
	command -v $(PKG_CONFIG) >/dev/null 2>&1 || missing=" $(PKG_CONFIG)"; \
	for m in $(PKGS); do $(PKG_CONFIG) --exists $$m 2>/dev/null || missing="$$missing $$m"; done; \
	test -f /usr/include/elfutils/libasm.h || missing="$$missing libasm.h"; \
	test -f /usr/include/dis-asm.h || missing="$$missing dis-asm.h"; \
	if [ -n "$$missing" ]; then \
		echo "provenance: cannot build, missing:$$missing (\`make deps\` installs them)" >&2; exit 1; \
	fi
$(LIB_OBJS) $(CMD_OBJS) .build-flags: | build-needs

# Install what is missing, once: check, demo and bench depend on this; the
# build only checks (build-needs).
deps:
	$(Q)missing=""; \
	$(PKG_CONFIG) --exists $(PKGS) $(TEST_PKGS) 2>/dev/null || missing=libs; \
	test -f /usr/include/elfutils/libasm.h || missing="$$missing libasm"; \
	test -f /usr/include/dis-asm.h || missing="$$missing binutils-dev"; \
	python3 -c 'import jsonschema' >/dev/null 2>&1 || missing="$$missing python3-jsonschema"; \
	for c in $(DEB_COMMANDS); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$(NO_DEPS)" = 1 ]; then echo "missing: $$missing (NO_DEPS=1 set)" >&2; exit 1; fi; \
		echo "installing Debian packages (missing:$$missing)" >&2; \
		if [ "$$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_PACKAGES) >/dev/null || exit 1; \
	fi
	$(Q)[ "$(NO_DEPS)" = 1 ] && exit 0; for p in $(DEB_DOWNLOADS); do \
		ls tests/debs/$${p}_*.deb >/dev/null 2>&1 && continue; \
		mkdir -p tests/debs && (cd tests/debs && apt-get download -qq $$p 2>/dev/null) || \
			echo "cannot download the Debian package $$p (tests that unpack it will skip)" >&2; \
	done
	$(Q)[ "$(NO_DEPS)" = 1 ] && exit 0; if [ "$$(id -u)" != 0 ]; then SUDO="sudo -n"; else SUDO=; fi; \
	why=$$($$SUDO tests/e2e/arm64-root.sh "$$PWD/tests/debs/arm64-root") || \
		echo "no Debian arm64 root: $$why (t-analyze-aarch64-python will skip)" >&2

check: deps all $(UNIT_TESTS)
	$(Q)SANITIZE='$(SANITIZE)' CC='$(CC)' ./tests/run-tests.sh

check-unit: deps all $(UNIT_TESTS)
	$(Q)./tests/run-tests.sh --unit

demo: deps all
	$(Q)./fixtures/demo/run-demo.sh

bench: deps all
	$(Q)./bench/run-bench.sh

# libFuzzer targets: fuzz/fuzz-*.c, each linked with the library sources
# rebuilt by clang with -fsanitize=fuzzer,address,undefined.
FUZZ_CC = clang
FUZZ_SRCS = $(wildcard fuzz/fuzz-*.c)
FUZZ_TARGETS = $(FUZZ_SRCS:.c=)
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DPROV_FUZZING \
	-DPROV_VERSION='"$(VERSION)"' -DPROV_DATADIR='"$(datadir)"' $(INC_all) $(PKG_CFLAGS)
FUZZ_SECONDS ?= 60

fuzz: deps $(FUZZ_TARGETS)

fuzz/fuzz-%: fuzz/fuzz-%.c $(LIB_OBJS:.o=.c)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(LIB_OBJS:.o=.c) $(LIBS)

check-fuzz: fuzz
	$(Q)./fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# installs nothing but the program and install-data's files; needs no deps
install: $(PROGRAM) install-data
	install -d $(DESTDIR)$(bindir)
	install -m 755 $(PROGRAM) $(DESTDIR)$(bindir)/$(PROGRAM)

# everything but the program (no build): mappings, man page, shell completion
install-data:
	install -d $(DESTDIR)$(datadir)/mappings $(DESTDIR)$(mandir)/man1
	install -m 644 mappings/*.map $(DESTDIR)$(datadir)/mappings/
	sed 's|/usr/local/share/provenance|$(datadir)|g' docs/provenance.1 >$(DESTDIR)$(mandir)/man1/provenance.1
	chmod 644 $(DESTDIR)$(mandir)/man1/provenance.1
	install -d $(DESTDIR)$(bashcompdir) $(DESTDIR)$(zshcompdir)
	install -m 644 docs/completion/provenance.bash $(DESTDIR)$(bashcompdir)/provenance
	install -m 644 docs/completion/_provenance $(DESTDIR)$(zshcompdir)/_provenance

# exactly what install put there, and the provenance folders it made when
# they are left empty (not bin, man1 or the completion folders: shared)
uninstall:
	rm -f $(DESTDIR)$(bindir)/$(PROGRAM) $(DESTDIR)$(mandir)/man1/provenance.1
	rm -f $(addprefix $(DESTDIR)$(datadir)/,$(wildcard mappings/*.map))
	rm -f $(DESTDIR)$(bashcompdir)/provenance $(DESTDIR)$(zshcompdir)/_provenance
	rmdir $(DESTDIR)$(datadir)/mappings $(DESTDIR)$(datadir) 2>/dev/null || true

clean:
	rm -f $(PROGRAM) $(LIB) $(LIB_OBJS) $(CMD_OBJS) $(UNIT_TESTS) .build-flags .build-datadir
	rm -f $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_TESTS:=.d)
	rm -rf tests/out $(FUZZ_TARGETS)

.PHONY: all deps build-needs check check-unit demo bench fuzz check-fuzz install install-data \
	uninstall clean FORCE

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d)
