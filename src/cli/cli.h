/*
 * cli.h - what the nnscope subcommands share: exit codes, one-line error
 * printing, the option parser (each command describes its options in a
 * table), opening the runs under a path, terminal detection, the loop that
 * loads every span of a run (trace -> model -> profile) and hands each to
 * a subcommand, keeping models alive only while a distributed view of the
 * span group needs them, and the SQLite database those spans go into.
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
int cmd_top(int argc, char **argv);

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

/* ---- options: each subcommand describes its options in a table ---- */

/* What a parsing step returns when the command goes on; any other value
 * is the exit code to return (CLI_OK after --help). */
#define CLI_CONTINUE (-1)
/* key | CLI_LONG_ONLY: the option has no one-letter form. */
#define CLI_LONG_ONLY 0x100

enum cli_opt_type {
	CLI_OPT_FLAG, /* *(int *)dst = lo */
	CLI_OPT_STR,  /* *(const char **)dst = the argument (argv's, not copied) */
	CLI_OPT_LONG, /* *(long *)dst = the argument in [lo, hi], else the usage
		       * error "--NAME wants WANTS, not 'ARG'" */
	CLI_OPT_CALL, /* call(dst, argument): CLI_CONTINUE or an exit code */
	CLI_OPT_SIZE, /* *(int64_t *)dst = a byte count, "N" or "N" and K, M, G
		       * or T (powers of 1024); 0 is stored as -1 ("no limit") */
};

struct cli_opt {
	const char *name; /* long name, without "--"; NULL ends a table */
	int key;	  /* getopt's value, and the one-letter option unless
			   * | CLI_LONG_ONLY; unique within a table, not 'h' */
	int arg;	  /* no_argument, required_argument, optional_argument */
	enum cli_opt_type type;
	void *dst;
	long lo, hi;
	const char *wants;
	int (*call)(void *dst, const char *arg);
};

/* Table entries (compound literals: the tables are built where the
 * variables they fill live). */
#define CLI_OPT_FLAG(name, key, dst, value)                                                        \
	((struct cli_opt){(name), (key), 0, CLI_OPT_FLAG, (dst), (value), 0, NULL, NULL})
#define CLI_OPT_STR(name, key, dst)                                                                \
	((struct cli_opt){(name), (key), 1, CLI_OPT_STR, (dst), 0, 0, NULL, NULL})
#define CLI_OPT_LONG(name, key, dst, lo, hi, wants)                                                \
	((struct cli_opt){(name), (key), 1, CLI_OPT_LONG, (dst), (lo), (hi), (wants), NULL})
#define CLI_OPT_CALL(name, key, arg, fn, dst)                                                      \
	((struct cli_opt){(name), (key), (arg), CLI_OPT_CALL, (dst), 0, 0, NULL, (fn)})
#define CLI_OPT_SIZE(name, key, dst)                                                               \
	((struct cli_opt){(name), (key), 1, CLI_OPT_SIZE, (dst), 0, 0, NULL, NULL})
#define CLI_OPT_END ((struct cli_opt){NULL, 0, 0, CLI_OPT_FLAG, NULL, 0, 0, NULL, NULL})
/* The options several subcommands share, spelled once. */
#define CLI_OPT_THREADS(dst) CLI_OPT_LONG("threads", 'j', (dst), 0, 256, "0..256")
#define CLI_OPT_TOP(dst) CLI_OPT_LONG("top", 'n', (dst), 1, 1000000, "a positive number")
#define CLI_OPT_WORKER(dst) CLI_OPT_STR("worker", 'w', (dst))
#define CLI_OPT_SPAN(dst) CLI_OPT_STR("span", 's', (dst))
#define CLI_OPT_QUIET(dst) CLI_OPT_FLAG("quiet", 'q', (dst), 1)
#define CLI_OPT_NO_COLOR(dst) CLI_OPT_FLAG("no-color", 'C' | CLI_LONG_ONLY, (dst), 1)

/* The input limits of the commands that load traces (kineto.h); a field
 * stays 0 (the importer's default) unless given, and 0 given is -1 (off). */
struct cli_limits {
	int64_t max_input, max_ratio, max_memory;
};
#define CLI_OPT_LIMITS(l)                                                                          \
	CLI_OPT_SIZE("max-input", 0xf1 | CLI_LONG_ONLY, &(l)->max_input),                          \
	    CLI_OPT_SIZE("max-ratio", 0xf2 | CLI_LONG_ONLY, &(l)->max_ratio),                      \
	    CLI_OPT_SIZE("max-memory", 0xf3 | CLI_LONG_ONLY, &(l)->max_memory)
/* Their lines of the commands' --help. */
#define CLI_LIMITS_HELP                                                                            \
	"      --max-input BYTES\n"                                                                \
	"                     read at most BYTES of JSON, after gunzip (K, M, G\n"                 \
	"                     suffixes; default 64G; 0 = no limit)\n"                              \
	"      --max-ratio N  refuse a .gz that expands more than N times (default\n"              \
	"                     200; real traces compress 20-30x; 0 = no limit)\n"                   \
	"      --max-memory BYTES\n"                                                               \
	"                     memory budget of a trace: the larger of BYTES and its\n"             \
	"                     JSON size (default 512M; 0 = no budget)\n"
/* Copies the limits given into ko (after cli_kineto_opts). */
void cli_kineto_limits(struct kineto_opts *ko, const struct cli_limits *l);
/* Parses a byte count: digits, then optionally K, M, G or T (x 1024^n,
 * with an optional "B" or "iB"); 0 on success. */
int cli_parse_size(const char *s, int64_t *out);

struct cli_cmd {
	const char *name;    /* "report": messages say "nnscope report: ..." */
	const char *usage;   /* printed on stdout by -h / --help */
	int stop_at_operand; /* options end at the first operand (run's CMD) */
};

/* Parses argv's options by the table opts (every command also takes
 * -h/--help), in order: each value is checked as it comes, the first
 * problem is a usage error. CLI_CONTINUE with *first the index of the
 * first operand, or the exit code to return (CLI_OK after --help). */
int cli_parse_options(const struct cli_cmd *cmd, const struct cli_opt *opts, int argc, char **argv,
		      int *first);
/* The operands of a command that takes one input path: CLI_CONTINUE, or
 * CLI_EUSAGE after saying `missing` (none) or how many there were. */
int cli_one_input(const char *cmd, int argc, int first, const char *missing);

/* Discovers the runs under path into rs, prints what discovery skipped,
 * and checks --run / --worker / --span (NULL: not given) against them
 * (cli_check_selection). CLI_OK with rs to run_set_release, or the exit
 * code after the message (rs released). */
int cli_open_runs(struct run_set *rs, const char *cmd, const char *path, const char *only_run,
		  const char *worker, const char *span);
/* The importer options of the CLI: `threads` parser threads, progress on
 * stderr when it is a terminal. */
void cli_kineto_opts(struct kineto_opts *ko, long threads);

struct report_opts; /* output/report.h */
/* Terminal tables: colour unless no_color (or NO_COLOR, or not a tty),
 * the terminal's width, top rows per table. */
void cli_report_opts(struct report_opts *ro, int no_color, long top);

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
	int loaded;	 /* m and p are valid */
	uint32_t passes; /* passes computed with the base ones (AN_PASS_BIT) */
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
	uint32_t passes;	 /* passes to compute at load beside the base ones
				  * (AN_PASSES_DOCS: what analyse writes) */
	size_t groups;		 /* set by cli_visit_run: span groups of the run */
	size_t load_failed;	 /* spans that could not be loaded (counted, reported) */
	void *ctx;
	/* Called for each loaded span; returns CLI_OK or an exit code
	 * (the loop goes on either way). */
	int (*on_profile)(void *ctx, const struct cli_item *it);
	/* When set, called for each span once its model is loaded and its
	 * profile an_profile_init'ed, before the profile's passes run (the
	 * SQLite export starts writing the model's rows there, on a thread,
	 * while they run); CLI_OK or an exit code. on_drop is then called
	 * before the item is released, whether on_profile ran or the passes
	 * failed: the hook's side lets go of the item. */
	int (*on_model)(void *ctx, const struct cli_item *it);
	void (*on_drop)(void *ctx, const struct cli_item *it);
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

/* The SQLite database of `analyse --sqlite` and `export --format sqlite`
 * (cli_sql.c). */
struct out_sqlite; /* output/sqlite_out.h */
struct cli_sql {
	struct out_sqlite *db; /* NULL: no database (the adds do nothing) */
	int failed;	       /* an add failed (reported); later adds are skipped */
	size_t workers;	       /* spans added */
};

/* Opens the database at path before any trace is read, so that an
 * unwritable path fails first. CLI_OK, or CLI_EINPUT after the message. */
int cli_sql_open(struct cli_sql *s, const char *path);
/* Adds one span / the distributed view of a span group. CLI_OK (also
 * when skipped after an earlier failure), or CLI_EINPUT after the
 * message. */
int cli_sql_add(struct cli_sql *s, const struct cli_item *it);
/* cli_visit's on_model and on_drop for the database: cli_sql_begin starts
 * writing the span's rows while its profile is computed (cli_sql_add
 * then adds the rest); cli_sql_drop, for a span begun and not added,
 * removes them. CLI_OK, or CLI_EINPUT after the message. */
int cli_sql_begin(struct cli_sql *s, const struct cli_item *it);
void cli_sql_drop(struct cli_sql *s, const struct cli_item *it);
int cli_sql_add_dist(struct cli_sql *s, const char *span_name, const struct an_dist *d);
/* Ends the export: when status is CLI_OK and no add failed, commits
 * (*rows, may be NULL: the rows written) and returns CLI_OK; otherwise
 * leaves no file, says "<path>: not written", and returns CLI_EINPUT. */
int cli_sql_finish(struct cli_sql *s, const char *path, int status, int64_t *rows);

/* "run/worker.span" style label for messages and headings. */
void cli_item_label(char *dst, size_t size, const struct cli_item *it, int with_run);

/* Step-trace points from the environment into m's metadata (cli_common.c). */
struct model;
int cli_step_points(struct model *m);

#endif
