/*
 * cmd_diff.c - `nnscope diff <base> <exp>` (two traces) or `nnscope diff
 * <run-dir>` (span 1 vs span 2 of a worker): step-time and operator deltas,
 * printed as tables and optionally written as JSON.
 */
#include "cli/cli.h"
#include "output/output.h"
#include "output/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope diff <base-trace> <exp-trace> [options]\n"
    "       nnscope diff <run-dir> [options]      (span 1 vs span 2 of a worker)\n"
    "\n"
    "Compares two profiles: average step time by category and per-operator host\n"
    "and device time (exp - base).\n"
    "\n"
    "Options:\n"
    "  -o, --out FILE     also write the comparison as JSON to FILE\n"
    "  -w, --worker NAME  the worker to use when a path holds several\n"
    "  -n, --top N        operator rows to print (default 20)\n"
    "  -j, --threads N    parse and analysis threads (0 = one per CPU)\n" CLI_LIMITS_HELP
    "      --no-color     no ANSI colours\n"
    "  -h, --help         show this help\n";

/* Picks the single run of rs, and a worker (by name, or the only one).
 * On NULL, *rc is the exit code: CLI_EUSAGE when --worker names no worker
 * (the workers are listed, as report and export do), else CLI_EINPUT. */
static const struct run_worker *pick_worker(const struct run_set *rs, const char *path,
					    const char *worker, int need_spans, int *rc)
{
	const struct run *r;

	*rc = CLI_EINPUT;
	if (rs->runs.n != 1) {
		cli_error(path, "holds several runs; pass a trace file or one run directory");
		return NULL;
	}
	r = &rs->runs.v[0];
	if (worker) {
		const struct run_worker *w = run_find_worker(r, worker);

		if (!w)
			*rc = cli_check_selection(rs, "diff", NULL, worker, NULL);
		return w;
	}
	if (need_spans) {
		for (size_t i = 0; i < r->workers.n; i++)
			if (r->workers.v[i].spans.n >= 2)
				return &r->workers.v[i];
		cli_error(path, "no worker with two spans to compare; give two trace files");
		return NULL;
	}
	if (r->workers.n != 1) {
		cli_error(path, "holds several workers; choose one with --worker");
		return NULL;
	}
	return &r->workers.v[0];
}

/* Resolves a path to exactly one trace file; on NULL, *rc is the exit code. */
static const char *one_trace(struct run_set *rs, const char *path, const char *worker, int *rc)
{
	const struct run_worker *w;

	if ((*rc = cli_open_runs(rs, "diff", path, NULL, NULL, NULL)))
		return NULL;
	w = pick_worker(rs, path, worker, 0, rc);
	if (!w)
		return NULL;
	*rc = CLI_EINPUT;
	if (w->spans.n != 1) {
		cli_error(path, "holds several spans; pass a single trace file");
		return NULL;
	}
	return w->spans.v[0].path;
}

/* What the command line asks for. */
struct diff_args {
	const char *out, *worker;
	const char *paths[2]; /* two traces, or a run directory and NULL */
	long top, threads;
	int no_color;
	struct cli_limits lim;
};

static int diff_parse_args(int argc, char **argv, struct diff_args *a)
{
	static const struct cli_cmd cmd = {"diff", USAGE, 0};
	const struct cli_opt opts[] = {
	    CLI_OPT_STR("out", 'o', &a->out),
	    CLI_OPT_WORKER(&a->worker),
	    CLI_OPT_TOP(&a->top),
	    CLI_OPT_THREADS(&a->threads),
	    CLI_OPT_NO_COLOR(&a->no_color),
	    CLI_OPT_LIMITS(&a->lim),
	    CLI_OPT_END,
	};
	int first, rc;

	memset(a, 0, sizeof(*a));
	a->top = 20;
	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE)
		return rc;
	if (first >= argc)
		return cli_usage_error("diff", "missing the traces to compare");
	if (argc - first > 2)
		return cli_usage_error("diff", "at most two input paths, got %d", argc - first);
	a->paths[0] = argv[first];
	a->paths[1] = argc - first == 2 ? argv[first + 1] : NULL;
	return CLI_CONTINUE;
}

/* The two trace files to compare: the two paths, or spans 1 and 2 of a
 * worker of the run directory. CLI_OK, or the exit code after the
 * message; rs_a, rs_b (zeroed by the caller) hold what the paths point
 * into, to release either way. */
static int diff_inputs(const struct diff_args *a, struct run_set *rs_a, struct run_set *rs_b,
		       const char **base, const char **exp)
{
	const struct run_worker *w;
	struct nns_err err;
	int status = CLI_EINPUT;

	if (a->paths[1]) {
		*base = one_trace(rs_a, a->paths[0], a->worker, &status);
		*exp = *base ? one_trace(rs_b, a->paths[1], a->worker, &status) : NULL;
		return *base && *exp ? CLI_OK : status;
	}
	nns_err_clear(&err);
	if (run_discover(rs_a, a->paths[0], NULL, &err)) {
		cli_error(a->paths[0], err.msg);
		return CLI_EINPUT;
	}
	w = pick_worker(rs_a, a->paths[0], a->worker, 1, &status);
	if (!w)
		return status;
	if (w->spans.n < 2) {
		cli_error(a->paths[0], "the worker has a single span; give two trace files");
		return CLI_EINPUT;
	}
	*base = w->spans.v[0].path;
	*exp = w->spans.v[1].path;
	return CLI_OK;
}

/* Loads both traces, compares them, prints the tables and writes --out. */
static int diff_traces(const struct diff_args *a, const char *base, const char *exp)
{
	struct cli_item ia, ib;
	struct kineto_opts ko;
	struct report_opts ro;
	struct an_diff d;
	struct nns_err err;
	int status = CLI_EINPUT;

	memset(&ia, 0, sizeof(ia));
	memset(&ib, 0, sizeof(ib));
	memset(&d, 0, sizeof(d));
	cli_kineto_opts(&ko, a->threads);
	cli_kineto_limits(&ko, &a->lim);
	if (cli_load(&ia, base, &ko) || cli_load(&ib, exp, &ko))
		goto out;
	nns_err_clear(&err);
	if (an_diff_compute(&d, &ia.p, &ib.p, &err)) {
		cli_error(exp, err.msg[0] ? err.msg : "diff failed");
		goto out;
	}
	cli_report_opts(&ro, a->no_color, a->top);
	report_diff(stdout, &d, base, exp, &ro);
	fflush(stdout);
	status = CLI_OK;
	if (a->out && out_write_diff(a->out, &d, base, exp, &err)) {
		cli_error(NULL, err.msg);
		status = CLI_EINPUT;
	}
	an_diff_release(&d);
out:
	cli_item_release(&ia);
	cli_item_release(&ib);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	struct run_set rs_a, rs_b;
	const char *base = NULL, *exp = NULL;
	int rc;

	if ((rc = diff_parse_args(argc, argv, &a)) != CLI_CONTINUE)
		return rc;
	memset(&rs_a, 0, sizeof(rs_a));
	memset(&rs_b, 0, sizeof(rs_b));
	rc = diff_inputs(&a, &rs_a, &rs_b, &base, &exp);
	if (rc == CLI_OK)
		rc = diff_traces(&a, base, exp);
	run_set_release(&rs_a);
	run_set_release(&rs_b);
	return rc;
}
