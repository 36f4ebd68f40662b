#ifndef PROV_TEXTPARSE_H
#define PROV_TEXTPARSE_H

#include <stddef.h>

#include "model.h"

/*
 * Parsers for backtraces as people paste them: gdb (bt, thread apply all bt,
 * bt full), eu-stack, systemd-coredump / coredumpctl info, sanitizer reports
 * (ASan, UBSan, TSan, MSan), Python faulthandler, Python tracebacks, pystack,
 * PyTorch/c10, glibc backtrace_symbols, signal-handler style. Mixed input (a
 * whole ticket) is scanned for the backtraces in it; other text is ignored
 * and no frame is ever invented.
 *
 * `name` is the input's name for messages and crash.input.path ("-" for
 * stdin). On success *out is a new model of kind PROV_INPUT_TEXT with
 * c->format set to the dominant format's name; frames keep the index the text
 * printed; module, file, line as written. PROV_EINPUT when no backtrace is
 * found (message: "'NAME' holds no backtrace that provenance can read").
 * The parser never reads outside [data, data+len) and needs no NUL.
 */
int prov_text_parse(struct prov_crash **out, const char *name,
		    const char *data, size_t len);

/*
 * A cluster job's log (issue 33, src/text/labels.h): its lines are grouped
 * by the rank or task label their prefixes carry and each group is parsed
 * as its own input (prov_text_parse), so that each rank's crash is one
 * crash, in label order (lines with no label first). Each crash gets
 * crash.label and, when a launcher line named its rank, crash.launch.
 * Text with no label gives one crash, as prov_text_parse does. *out is a
 * new array of *nout crashes (free each, then the array). A group with no
 * backtrace is left out; PROV_EINPUT when none has one.
 */
int prov_text_parse_all(struct prov_crash ***out, size_t *nout, const char *name,
			const char *data, size_t len);

#endif
