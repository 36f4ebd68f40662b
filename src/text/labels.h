#ifndef PROV_TEXT_LABELS_H
#define PROV_TEXT_LABELS_H

/*
 * Private to the text reader (src/text/): a cluster job's log cut into one
 * text per rank before any format reads it (issue 33). The prefixes that
 * schedulers and launchers put before every line are learnt from the lines
 * and cut; a prefix that names a rank or a task is a label, and the lines of
 * one label make one group:
 *
 *   srun --label        "3: ", "0-3: "                  label "3" (task)
 *   torchrun            "[rank3]:", "[default3]:"       label "rank3"
 *   OpenMPI tag-output  "[1,3]<stderr>:"                label "1,3"
 *   OpenMPI             "[node07:31337] "               label "node07:31337"
 *   kubectl / docker    "2024-05-01T12:00:00.123Z "     (cut)
 *   journald short      "Apr 14 21:02:39 host ident[pid]: " (cut; also
 *                       short-iso and short-precise)
 *   syslog              "Apr 14 21:02:39 ", "[18] " after it only when it
 *                       is the same on every line (else a frame index)
 *   c10 / glog          "[E1128 10:00:00.123 file.cpp:12] " after a label
 *
 * Two labels on one line ("0: [rank0]: "): the rank is the label, the srun
 * task is kept beside it. Launcher lines ("srun: error: node17: task 3:
 * Segmentation fault (core dumped)", torchrun's ChildFailedError table)
 * annotate the group of the rank or task they name.
 */

#include <stddef.h>

#include "buf.h"

/* What a launcher said about one rank or task. */
struct tp_launch {
	char *launcher;	/* "srun", "torchrun" */
	char *host;	/* "node17" */
	int has_exit_code;
	int exit_code;	/* the process's own, or -signal as torchrun prints it */
	int signo;	/* the signal it died of, 0 when not said */
	char *error_file;	/* torchrun's error_file, NULL for "<N/A>" */
};

struct tp_group {
	char *label;	/* as printed ("rank3", "3"); NULL: lines with no label */
	char *task;	/* srun's task when a rank label came with it, else NULL */
	long number;	/* the label's number, for ordering; -1 none */
	struct prov_buf text;	/* its lines, prefixes cut, each ending in '\n' */
	size_t nlines;
	int has_launch;
	struct tp_launch launch;
};

struct tp_groups {
	struct tp_group *g;	/* the unlabelled group first, then label order */
	size_t n, alloc;
	int labelled;	/* at least one line had a label */
};

/*
 * Cut [data, data+len) into groups. Never fails on content: text with no
 * prefix is one unlabelled group holding it all (prefixes cut). Lines longer
 * than `max_line` are dropped (the caller warns). PROV_ELIMIT when a group
 * outgrows its buffer (the input is capped by the caller anyway).
 * Release with tp_groups_release (also on error).
 */
int tp_groups_split(struct tp_groups *out, const char *data, size_t len, size_t max_line);
void tp_groups_release(struct tp_groups *gs);

/*
 * Length of the prefixes tp_groups_split cuts at the start of `s` (a NUL
 * terminated line), for a caller that reads one line alone (tests). The
 * label and task, when any, are stored in *label and *task (new strings, or
 * NULL). No learning: srun's "N: " is taken, syslog's "[N] " is not.
 */
size_t tp_label_prefix(const char *s, char **label, char **task);

#endif
