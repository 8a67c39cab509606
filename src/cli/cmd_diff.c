/*
 * cmd_diff.c - `nnscope diff <base> <exp>` (two traces) or `nnscope diff
 * <run-dir>` (span 1 vs span 2 of a worker): step-time and operator deltas,
 * printed as tables and optionally written as JSON.
 */
#include "cli/cli.h"
#include "output/output.h"
#include "output/report.h"

#include <getopt.h>
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
    "  -j, --threads N    parser threads (0 = one per CPU, the default)\n"
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
	struct nns_err err;

	*rc = CLI_EINPUT;
	nns_err_clear(&err);
	if (run_discover(rs, path, NULL, &err)) {
		cli_print_skipped(rs);
		cli_error(path, err.msg);
		run_set_release(rs);
		return NULL;
	}
	cli_print_skipped(rs);
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

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"worker", required_argument, NULL, 'w'},
	    {"top", required_argument, NULL, 'n'},
	    {"threads", required_argument, NULL, 'j'},
	    {"no-color", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *worker = NULL, *base = NULL, *exp = NULL;
	struct run_set rs_a, rs_b;
	struct cli_item a, b;
	struct kineto_opts ko;
	struct report_opts ro;
	struct an_diff d;
	struct nns_err err;
	int c, status = CLI_EINPUT, color = -1, have_diff = 0;
	long top = 20, threads = 0;

	memset(&rs_a, 0, sizeof(rs_a));
	memset(&rs_b, 0, sizeof(rs_b));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&d, 0, sizeof(d));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:w:n:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'w':
			worker = optarg;
			break;
		case 'n':
			if (cli_parse_int(optarg, 1, 1000000, &top))
				return cli_usage_error(
				    "diff", "--top wants a positive number, not '%s'", optarg);
			break;
		case 'j':
			if (cli_parse_int(optarg, 0, 256, &threads))
				return cli_usage_error("diff", "--threads wants 0..256, not '%s'",
						       optarg);
			break;
		case 'C':
			color = 0;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("diff", c, optopt, argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("diff", "missing the traces to compare");
	if (argc - optind > 2)
		return cli_usage_error("diff", "at most two input paths, got %d", argc - optind);

	if (argc - optind == 2) {
		base = one_trace(&rs_a, argv[optind], worker, &status);
		exp = base ? one_trace(&rs_b, argv[optind + 1], worker, &status) : NULL;
	} else {
		const struct run_worker *w;

		nns_err_clear(&err);
		if (run_discover(&rs_a, argv[optind], NULL, &err)) {
			cli_error(argv[optind], err.msg);
			goto out;
		}
		w = pick_worker(&rs_a, argv[optind], worker, 1, &status);
		if (w && w->spans.n < 2)
			cli_error(argv[optind],
				  "the worker has a single span; give two trace files");
		else if (w) {
			base = w->spans.v[0].path;
			exp = w->spans.v[1].path;
		}
	}
	if (!base || !exp)
		goto out;

	memset(&ko, 0, sizeof(ko));
	ko.threads = (int)threads;
	ko.progress = isatty(STDERR_FILENO);
	if (cli_load(&a, base, &ko) || cli_load(&b, exp, &ko))
		goto out;
	nns_err_clear(&err);
	if (an_diff_compute(&d, &a.p, &b.p, &err)) {
		cli_error(exp, err.msg[0] ? err.msg : "diff failed");
		goto out;
	}
	have_diff = 1;
	ro.color = color == 0 ? 0 : cli_stdout_color();
	ro.width = cli_stdout_width();
	ro.top = (int)top;
	report_diff(stdout, &d, base, exp, &ro);
	fflush(stdout);
	status = CLI_OK;
	if (out && out_write_diff(out, &d, base, exp, &err)) {
		cli_error(NULL, err.msg);
		status = CLI_EINPUT;
	}
out:
	if (have_diff)
		an_diff_release(&d);
	cli_item_release(&a);
	cli_item_release(&b);
	run_set_release(&rs_a);
	run_set_release(&rs_b);
	return status;
}
