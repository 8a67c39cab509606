/*
 * cli.h - what the nnscope subcommands share: exit codes, one-line error
 * printing, option parsing helpers, terminal detection, and the loop that
 * loads every span of a run (trace -> model -> profile) and hands each to
 * a subcommand, keeping models alive only while a distributed view of the
 * span group needs them.
 *
 * This is the only part of nnscope that prints to the user and exits.
 */
#ifndef NNS_CLI_CLI_H
#define NNS_CLI_CLI_H

#include "analysis/analysis.h"
#include "importers/kineto.h"
#include "importers/run.h"

#include <stdio.h>

enum { CLI_OK = 0, CLI_EINPUT = 1, CLI_EUSAGE = 2 };

int cmd_analyse(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_collect(int argc, char **argv);

/* "nnscope: <path>: <msg>" on stderr (path omitted when msg starts with
 * it, or when path is NULL). */
void cli_error(const char *path, const char *msg);
void cli_warn(const char *path, const char *msg);
/* A usage error: prints "nnscope <cmd>: <msg>" and a hint; returns
 * CLI_EUSAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports getopt_long's '?' or ':' result; returns CLI_EUSAGE. */
int cli_bad_option(const char *cmd, int c, int optopt_value, const char *arg);

/* One warning line per file the discovery left out ("skipped: <why>"). */
void cli_print_skipped(const struct run_set *rs);
/* --worker / --span (either may be NULL) against what rs holds (within the
 * run only_run when set): CLI_OK, or CLI_EUSAGE after a usage error that
 * lists the workers, or each worker's spans, that exist. */
int cli_check_selection(const struct run_set *rs, const char *cmd, const char *only_run,
			const char *worker, const char *span);

/* Parses a decimal integer in [min, max]; 0 on success. */
int cli_parse_int(const char *s, long min, long max, long *out);

int cli_stdout_color(void); /* stdout is a tty and NO_COLOR is unset/empty */
int cli_stdout_width(void); /* terminal columns, COLUMNS, else 160 */

struct cl_result; /* analysis/cluster.h */

/* One loaded worker/span. */
struct cli_item {
	const struct run *run;
	const struct run_worker *worker;
	const struct run_span *span;
	struct model m;
	struct an_profile p;
	int loaded; /* m and p are valid */
};

/* --steps A-B: analyse only the steps numbered A..B (MindSpore's
 * analyse(step_list=...)); on = 0: every step. */
struct cli_steps {
	int on;
	long first, last;
};

/* Parses "A", "A-B" or a list "A,B,C" of consecutive step numbers (>= 0).
 * 0, or -1 with a message in msg (size bytes). */
int cli_parse_steps(const char *s, struct cli_steps *st, char *msg, size_t size);

struct cli_visit {
	struct cli_steps steps;
	struct kineto_opts kopts;
	const char *only_worker; /* NULL = all */
	const char *only_span;	 /* NULL = all; a span name or suffix */
	int want_dist;		 /* compute an_dist for groups of > 1 worker */
	struct an_opts aopts;	 /* options of the passes, given to every profile */
	size_t groups;		 /* set by cli_visit_run: span groups of the run */
	size_t load_failed;	 /* spans that could not be loaded (counted, reported) */
	void *ctx;
	/* Called for each loaded span; returns CLI_OK or an exit code
	 * (the loop goes on either way). */
	int (*on_profile)(void *ctx, const struct cli_item *it);
	/* Called per span group when want_dist and the group has > 1
	 * worker; span_name may be NULL. */
	int (*on_dist)(void *ctx, const struct run *r, const char *span_name, size_t group,
		       const struct an_dist *d);
	/* When set, called per span group with want_dist and > 1 worker: the
	 * cluster step trace of the group, one rank per worker. */
	int (*on_cluster)(void *ctx, const struct run *r, const char *span_name, size_t group,
			  const struct cl_result *c);
};

/* Visits every selected span of r, group by group (span index k of every
 * worker). A span that cannot be loaded is reported in one line and
 * counted in v->load_failed; the others go on. Returns CLI_OK, or
 * CLI_EINPUT if anything else failed (writing, distributed analysis:
 * already reported). *visited counts the spans loaded. */
int cli_visit_run(const struct run *r, struct cli_visit *v, size_t *visited);

/* Loads one trace file into it->m and computes it->p, printing warnings
 * (truncated input, skipped events) and errors. Returns CLI_OK or
 * CLI_EINPUT; on CLI_OK it->loaded is set. */
int cli_load(struct cli_item *it, const char *path, const struct kineto_opts *ko);
/* cli_load, with (st && st->on) the model cut to the host range of steps
 * st->first..st->last before it is analysed; an error names the steps the
 * trace has when none of them is selected. */
int cli_load_steps(struct cli_item *it, const char *path, const struct kineto_opts *ko,
		   const struct cli_steps *st);
void cli_item_release(struct cli_item *it);

/* Loads a trace into m (model_init done here): .nnst files (by their magic)
 * with the nnst importer, anything else with the Kineto importer. Returns
 * the importer's status (NNS_ETRUNC: m usable, err says what was cut);
 * on other errors m is released. Prints nothing. */
int cli_load_model(struct model *m, const char *path, const struct kineto_opts *ko,
		   struct nns_err *err);
/* Adds the host_info CSV rows of run r (may be NULL) that belong to m's
 * process: with a known pid (nnscope traces) the rows of that pid and its
 * children from every CSV; else every CSV when the run has one worker, or
 * the CSV named after m's rank. Problems are printed as warnings. */
void cli_load_host_info(struct model *m, const struct run *r);

/* "run/worker.span" style label for messages and headings. */
void cli_item_label(char *dst, size_t size, const struct cli_item *it, int with_run);

/* Step-trace points from the environment into m's metadata (cli_common.c). */
struct model;
int cli_step_points(struct model *m);

#endif
