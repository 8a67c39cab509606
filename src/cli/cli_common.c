/*
 * cli_common.c - helpers shared by the subcommands (cli.h): messages,
 * option parsing, terminal detection, and loading the spans of a run.
 */
#include "cli/cli.h"
#include "analysis/an_ms.h"
#include "analysis/cluster.h"
#include "importers/hostinfo.h"
#include "importers/load.h"
#include "output/report.h"
#include "importers/nnst.h"
#include "common/num.h"
#include "common/cpus.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Appends s to b (cap 1024), control characters as '?'. */
static void put_clean(char *b, size_t *n, const char *s)
{
	for (; *s && *n < 1023; s++)
		b[(*n)++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
}

/* One line, written at once: stderr is unbuffered, and under `mpirun` a
 * line written character by character interleaves with other processes'
 * output. */
static void print_msg(const char *kind, const char *path, const char *msg)
{
	size_t n = path ? strlen(path) : 0, k = 0;
	char b[1024];

	if (!msg || !*msg)
		msg = "unknown error";
	put_clean(b, &k, "nnscope: ");
	put_clean(b, &k, kind);
	if (path && !(strncmp(msg, path, n) == 0 && msg[n] == ':')) {
		put_clean(b, &k, path);
		put_clean(b, &k, ": ");
	}
	put_clean(b, &k, msg);
	b[k++] = '\n';
	fwrite(b, 1, k, stderr);
}

void cli_error(const char *path, const char *msg)
{
	print_msg("", path, msg);
}

void cli_warn(const char *path, const char *msg)
{
	print_msg("warning: ", path, msg);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nnscope%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nnscope %s%s--help' for more information.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return CLI_EUSAGE;
}

int cli_bad_option(const char *cmd, int c, int optopt_value, const char *arg)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg ? arg : "?");
	if (optopt_value)
		return cli_usage_error(cmd, "unknown option '-%c'", optopt_value);
	return cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "?");
}

int cli_parse_int(const char *s, long min, long max, long *out)
{
	int64_t v;

	if (!s || num_i64(s, strlen(s), &v, NULL) || v < min || v > max)
		return -1;
	*out = (long)v;
	return 0;
}

int cli_stdout_color(void)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && (!nc || !*nc);
}

int cli_stdout_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");
	long v;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	if (c && cli_parse_int(c, 40, 10000, &v) == 0)
		return (int)v;
	return 160;
}

/* The table's entry for getopt's value c, NULL when there is none. */
static const struct cli_opt *opt_for(const struct cli_opt *opts, int c)
{
	for (; opts->name; opts++)
		if ((opts->key & 0xff) == c)
			return opts;
	return NULL;
}

static int opt_apply(const char *cmd, const struct cli_opt *o, const char *arg)
{
	switch (o->type) {
	case CLI_OPT_FLAG:
		*(int *)o->dst = (int)o->lo;
		return CLI_CONTINUE;
	case CLI_OPT_STR:
		*(const char **)o->dst = arg;
		return CLI_CONTINUE;
	case CLI_OPT_LONG:
		if (cli_parse_int(arg, o->lo, o->hi, o->dst))
			return cli_usage_error(cmd, "--%s wants %s, not '%s'", o->name, o->wants,
					       arg ? arg : "");
		return CLI_CONTINUE;
	case CLI_OPT_CALL:
		return o->call(o->dst, arg);
	case CLI_OPT_SIZE:
		if (cli_parse_size(arg, o->dst))
			return cli_usage_error(cmd,
					       "--%s wants a number, with K, M, G or T for bytes "
					       "(0 = no limit), not '%s'",
					       o->name, arg ? arg : "");
		if (*(int64_t *)o->dst == 0)
			*(int64_t *)o->dst = -1;
		return CLI_CONTINUE;
	}
	return CLI_CONTINUE;
}

int cli_parse_size(const char *s, int64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	size_t n = s ? strlen(s) : 0, k = 0;
	int64_t v;
	int shift = 0;

	while (k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	if (k == 0 || num_i64(s, k, &v, NULL))
		return -1;
	if (k < n) {
		u = strchr(units, s[k] & ~0x20);
		if (!u || !*u)
			return -1;
		shift = 10 * (int)(u - units + 1);
		k++;
		if (k < n && s[k] == 'i')
			k++;
		if (k < n && (s[k] == 'B' || s[k] == 'b'))
			k++;
		if (k != n)
			return -1;
	}
	if (v > (INT64_C(1) << 62) >> shift)
		return -1;
	*out = v << shift;
	return 0;
}

#define CLI_MAX_OPTS 32

int cli_parse_options(const struct cli_cmd *cmd, const struct cli_opt *opts, int argc, char **argv,
		      int *first)
{
	struct option lo[CLI_MAX_OPTS + 2];
	char shorts[3 * CLI_MAX_OPTS + 8];
	size_t n = 0, k = 0;
	int c;

	if (cmd->stop_at_operand)
		shorts[k++] = '+';
	shorts[k++] = ':';
	for (; opts[n].name && n < CLI_MAX_OPTS; n++) {
		const struct cli_opt *o = &opts[n];

		lo[n] = (struct option){o->name, o->arg, NULL, o->key & 0xff};
		if (o->key & CLI_LONG_ONLY)
			continue;
		shorts[k++] = (char)o->key;
		for (int i = 0; i < o->arg; i++) /* ':' required, "::" optional */
			shorts[k++] = ':';
	}
	lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
	lo[n] = (struct option){NULL, 0, NULL, 0};
	shorts[k++] = 'h';
	shorts[k] = '\0';
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct cli_opt *o = c == ':' || c == '?' ? NULL : opt_for(opts, c);
		int rc;

		if (!o && c == 'h') {
			fputs(cmd->usage, stdout);
			return CLI_OK;
		}
		if (!o)
			return cli_bad_option(cmd->name, c, optopt, argv[optind - 1]);
		if ((rc = opt_apply(cmd->name, o, optarg)) != CLI_CONTINUE)
			return rc;
	}
	*first = optind;
	return CLI_CONTINUE;
}

int cli_one_input(const char *cmd, int argc, int first, const char *missing)
{
	if (first >= argc)
		return cli_usage_error(cmd, "%s", missing);
	if (first + 1 < argc)
		return cli_usage_error(cmd, "one input path expected, got %d", argc - first);
	return CLI_CONTINUE;
}

int cli_open_runs(struct run_set *rs, const char *cmd, const char *path, const char *only_run,
		  const char *worker, const char *span)
{
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	rc = run_discover(rs, path, NULL, &err);
	cli_print_skipped(rs);
	if (rc) {
		cli_error(path, err.msg);
		run_set_release(rs);
		return CLI_EINPUT;
	}
	rc = cli_check_selection(rs, cmd, only_run, worker, span);
	if (rc)
		run_set_release(rs);
	return rc;
}

void cli_kineto_opts(struct kineto_opts *ko, long threads)
{
	memset(ko, 0, sizeof(*ko));
	ko->threads = (int)threads;
	ko->progress = isatty(STDERR_FILENO);
}

void cli_kineto_limits(struct kineto_opts *ko, const struct cli_limits *l)
{
	ko->max_input = l->max_input;
	ko->max_ratio = l->max_ratio;
	ko->max_memory = l->max_memory;
}

void cli_report_opts(struct report_opts *ro, int no_color, long top)
{
	ro->color = no_color ? 0 : cli_stdout_color();
	ro->width = cli_stdout_width();
	ro->top = (int)top;
}

void cli_item_label(char *dst, size_t size, const struct cli_item *it, int with_run)
{
	const char *span = it->span && it->span->name ? it->span->name : NULL;

	snprintf(dst, size, "%s%s%s%s%s", with_run ? it->run->name : "", with_run ? "/" : "",
		 it->worker->name, span ? "." : "", span ? span : "");
}

int cli_load_model(struct model *m, const char *path, const struct kineto_opts *ko,
		   struct nns_err *err)
{
	return load_trace(m, path, ko, err);
}

static void warn_cb(void *ctx, const char *path, const char *msg)
{
	(void)ctx;
	cli_warn(path, msg);
}

void cli_load_host_info(struct model *m, const struct run *r)
{
	load_host_info(m, r, warn_cb, NULL);
}

static int step_number(const struct an_step *s, long *out)
{
	return cli_parse_int(s->name, 0, 2147483647L, out);
}

/* NNSCOPE_FP_START / NNSCOPE_BP_END (or MindSpore's PROFILING_FP_START /
 * PROFILING_BP_END) name the operators that start forward and end backward
 * (src/analysis/steptrace.c); set at analysis time they override what the
 * trace recorded. 0, or -1 out of memory. */
int cli_step_points(struct model *m)
{
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(i ? "NNSCOPE_BP_END" : "NNSCOPE_FP_START");

		if (!v || !*v)
			v = getenv(i ? "PROFILING_BP_END" : "PROFILING_FP_START");
		if (v && *v && model_add_meta(m, i ? "bp_end" : "fp_start", v))
			return -1;
	}
	return 0;
}

/* Cuts it->m to the host range of the steps st selects. The steps come
 * from the steps pass alone, so the full analysis runs once, on the cut.
 * Prints the error; it->m is left for the caller to release. */
static int cut_to_steps(struct cli_item *it, const char *path, const struct cli_steps *st)
{
	struct an_profile steps;
	struct nns_err err;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	long lo = -1, hi = -1, num;
	size_t i, found = 0;

	an_profile_init(&steps, &it->m);
	nns_err_clear(&err);
	if (an_profile_need(&steps, AN_PASS_STEPS, &err)) {
		cli_error(path, err.msg[0] ? err.msg : "finding the steps failed");
		an_profile_release(&steps);
		return CLI_EINPUT;
	}
	for (i = 0; i < steps.overview.steps.n; i++) {
		const struct an_step *s = &steps.overview.steps.v[i];
		if (step_number(s, &num))
			continue;
		if (lo < 0 || num < lo)
			lo = num;
		if (num > hi)
			hi = num;
		if (num < st->first || num > st->last)
			continue;
		found++;
		if (s->host_start < t0)
			t0 = s->host_start;
		if (s->host_end > t1)
			t1 = s->host_end;
	}
	an_profile_release(&steps);
	if (!found) {
		char msg[200];
		if (lo < 0)
			snprintf(msg, sizeof(msg),
				 "--steps %ld-%ld: this trace has no numbered steps", st->first,
				 st->last);
		else
			snprintf(msg, sizeof(msg),
				 "--steps %ld-%ld: no such steps (this trace has steps %ld-%ld)",
				 st->first, st->last, lo, hi);
		cli_error(path, msg);
		return CLI_EINPUT;
	}
	if (model_keep_window(&it->m, t0, t1, &err)) {
		cli_error(path, err.msg[0] ? err.msg : "cutting the trace to the steps failed");
		return CLI_EINPUT;
	}
	{ /* the MindSpore step trace is cut by it too (an_ms_attach) */
		char kept[48];

		snprintf(kept, sizeof(kept), "%ld-%ld", st->first, st->last);
		if (model_add_meta(&it->m, "steps_kept", kept)) {
			cli_error(path, "out of memory");
			return CLI_EINPUT;
		}
	}
	return CLI_OK;
}

int cli_parse_steps(const char *s, struct cli_steps *st, char *msg, size_t size)
{
	char buf[256], *dash, *tok, *save = NULL;
	long a, b, prev = -1;

	memset(st, 0, sizeof(*st));
	if (!s || strlen(s) >= sizeof(buf) || !*s) {
		snprintf(msg, size, "--steps wants A, A-B or A,B,C (step numbers), not '%s'",
			 s ? s : "");
		return -1;
	}
	strcpy(buf, s);
	if (strchr(buf, ',')) {
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (cli_parse_int(tok, 0, 2147483647L, &a)) {
				snprintf(msg, size, "--steps: '%s' is not a step number", tok);
				return -1;
			}
			if (prev >= 0 && a != prev + 1) {
				snprintf(msg, size,
					 "--steps: the steps must be consecutive (%ld follows %ld)",
					 a, prev);
				return -1;
			}
			if (prev < 0)
				st->first = a;
			st->last = prev = a;
		}
		st->on = prev >= 0;
		if (!st->on)
			snprintf(msg, size, "--steps: no step numbers in '%s'", s);
		return st->on ? 0 : -1;
	}
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (cli_parse_int(buf, 0, 2147483647L, &a) ||
	    (dash && cli_parse_int(dash + 1, 0, 2147483647L, &b))) {
		snprintf(msg, size, "--steps wants A, A-B or A,B,C (step numbers), not '%s'", s);
		return -1;
	}
	if (!dash)
		b = a;
	if (b < a) {
		snprintf(msg, size, "--steps %ld-%ld: the last step is before the first", a, b);
		return -1;
	}
	st->on = 1;
	st->first = a;
	st->last = b;
	return 0;
}

int cli_load(struct cli_item *it, const char *path, const struct kineto_opts *ko)
{
	return cli_load_steps(it, path, ko, NULL);
}

/* cli_load_steps' first half: it->m loaded (cut to st's steps), its
 * warnings printed, it->p zeroed. CLI_OK, or CLI_EINPUT with nothing held. */
static int load_item_model(struct cli_item *it, const char *path, const struct kineto_opts *ko,
			   const struct cli_steps *st)
{
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	it->loaded = 0;
	memset(&it->p, 0, sizeof(it->p));
	rc = cli_load_model(&it->m, path, ko, &err);
	if (rc == NNS_ETRUNC) {
		/* the importer's message says where and what it kept */
		cli_warn(path, err.msg[0]
				   ? err.msg
				   : "input is truncated; analysing the events read before it");
	} else if (rc) {
		cli_error(path, err.msg[0] ? err.msg : nns_strerror(rc));
		return CLI_EINPUT;
	}
	cli_load_host_info(&it->m, it->run);
	if (it->m.diag.note[0]) /* odd but readable input: the importer's note */
		cli_warn(NULL, it->m.diag.note);
	for (size_t i = 0; i < it->m.meta.n; i++) /* and its other warnings (ms_raw.h) */
		if (strcmp(model_str(&it->m, it->m.meta.v[i].key), "input_warning") == 0)
			cli_warn(NULL, model_str(&it->m, it->m.meta.v[i].value));
	/* a problem no count below says (data after the document, a clock
	 * running backwards ...): said as it is */
	if (rc != NNS_ETRUNC && !it->m.diag.events_skipped && it->m.diag.first_problem[0])
		cli_warn(NULL, it->m.diag.first_problem);
	if (it->m.diag.events_lost > 0) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "%lld event(s) were dropped by the collector (its buffers were full)",
			 (long long)it->m.diag.events_lost);
		cli_warn(path, msg);
	}
	if (it->m.diag.events_skipped > 0) {
		char msg[NNS_ERR_MSG_MAX + 64];

		snprintf(msg, sizeof(msg), "%lld event(s) skipped%s%s",
			 (long long)it->m.diag.events_skipped,
			 it->m.diag.first_problem[0] ? "; first: " : "", it->m.diag.first_problem);
		cli_warn(path, msg);
	}
	if (it->m.diag.notes > 0) {
		char msg[NNS_ERR_MSG_MAX + 96];

		snprintf(msg, sizeof(msg),
			 "%lld odd spot(s) in the input, read without losing an "
			 "event%s%s",
			 (long long)it->m.diag.notes, it->m.diag.first_note[0] ? "; first: " : "",
			 it->m.diag.first_note);
		cli_warn(path, msg);
	}
	if (st && st->on && cut_to_steps(it, path, st)) {
		model_release(&it->m);
		return CLI_EINPUT;
	}
	if (cli_step_points(&it->m)) {
		cli_error(path, "out of memory");
		model_release(&it->m);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* Its second half: the base passes of it->p (an_profile_init'ed over
 * it->m) and it->passes, on ko's threads, and MindSpore's results. CLI_OK (it->loaded set), or
 * CLI_EINPUT after the message, p and m still held. */
static int run_item_passes(struct cli_item *it, const char *path, const struct kineto_opts *ko)
{
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	rc = an_profile_run_mask(&it->p, it->passes,
				 cpus_threads(ko ? ko->threads : 0, AN_THREADS_MAX), &err);
	if (!rc)
		rc = an_ms_attach(&it->p, &err);
	if (rc) {
		cli_error(path, err.msg[0] ? err.msg : nns_strerror(rc));
		return CLI_EINPUT;
	}
	it->loaded = 1;
	return CLI_OK;
}

int cli_load_steps(struct cli_item *it, const char *path, const struct kineto_opts *ko,
		   const struct cli_steps *st)
{
	if (load_item_model(it, path, ko, st))
		return CLI_EINPUT;
	an_profile_init(&it->p, &it->m);
	if (run_item_passes(it, path, ko)) {
		an_profile_release(&it->p);
		model_release(&it->m);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* cli_load_steps for cli_visit_run, with v's hooks: on_model between the
 * model and the passes (its status into *hook_rc), on_drop when the
 * passes fail. */
static int load_visited(struct cli_item *it, const char *path, struct cli_visit *v, int *hook_rc)
{
	if (load_item_model(it, path, &v->kopts, &v->steps))
		return CLI_EINPUT;
	an_profile_init(&it->p, &it->m);
	it->p.opts = v->aopts;
	if (v->on_model)
		*hook_rc = v->on_model(v->ctx, it);
	if (run_item_passes(it, path, &v->kopts)) {
		if (v->on_model && v->on_drop)
			v->on_drop(v->ctx, it);
		an_profile_release(&it->p);
		model_release(&it->m);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* Releases a visited item, after v's on_drop (the hook's side lets go of
 * it first). */
static void release_visited(struct cli_visit *v, struct cli_item *it)
{
	if (it->loaded && v->on_model && v->on_drop)
		v->on_drop(v->ctx, it);
	cli_item_release(it);
}

void cli_item_release(struct cli_item *it)
{
	if (!it->loaded)
		return;
	an_profile_release(&it->p);
	model_release(&it->m);
	it->loaded = 0;
}

static const struct run_span *span_at(const struct run_worker *w, size_t k, const char *only_span)
{
	if (only_span) {
		const struct run_span *s = run_find_span(w, only_span);

		/* with a span filter there is a single group (k == 0) */
		return k == 0 ? s : NULL;
	}
	return k < w->spans.n ? &w->spans.v[k] : NULL;
}

static int run_dist(const struct run *r, struct cli_visit *v, struct cli_item *items, size_t n,
		    size_t group)
{
	const struct an_profile **profiles = calloc(n, sizeof(*profiles));
	const char **names = calloc(n, sizeof(*names));
	const char *span_name = NULL;
	struct an_dist d;
	struct nns_err err;
	size_t k = 0;
	int rc = CLI_OK;

	if (!profiles || !names) {
		free(profiles);
		free(names);
		cli_error(r->dir, "out of memory");
		return CLI_EINPUT;
	}
	for (size_t i = 0; i < n; i++) {
		if (!items[i].loaded)
			continue;
		profiles[k] = &items[i].p;
		names[k++] = items[i].worker->name;
		if (!span_name && items[i].span->name)
			span_name = items[i].span->name;
	}
	/* one worker gets the distributed view too when it communicates (a
	 * one-rank NCCL job: its comm op table); the cluster view needs two */
	if (k > 1 || (k == 1 && profiles[0]->comm_nodes.n > 0)) {
		memset(&d, 0, sizeof(d));
		nns_err_clear(&err);
		if (an_dist_compute(&d, profiles, names, k, &err)) {
			cli_error(r->dir, err.msg[0] ? err.msg : "distributed analysis failed");
			rc = CLI_EINPUT;
		} else if (v->on_dist) {
			rc = v->on_dist(v->ctx, r, span_name, group, &d);
		}
		an_dist_release(&d);
	}
	if (k > 1 && v->on_cluster) {
		struct cl_result c;
		int crc = NNS_OK;

		cl_init(&c);
		nns_err_clear(&err);
		for (size_t i = 0; i < k && crc == NNS_OK; i++)
			crc = cl_add_profile(&c, names[i], profiles[i], &err);
		if (crc == NNS_OK)
			crc = cl_finish(&c, &err);
		if (crc) {
			cli_error(r->dir, err.msg[0] ? err.msg : "cluster analysis failed");
			rc = CLI_EINPUT;
		} else if (v->on_cluster(v->ctx, r, span_name, group, &c)) {
			rc = CLI_EINPUT;
		}
		cl_release(&c);
	}
	free(profiles);
	free(names);
	return rc;
}

int cli_visit_run(const struct run *r, struct cli_visit *v, size_t *visited)
{
	size_t nw = r->workers.n, groups = 0;
	struct cli_item *items;
	int status = CLI_OK, keep;

	items = calloc(nw ? nw : 1, sizeof(*items));
	if (!items) {
		cli_error(r->dir, "out of memory");
		return CLI_EINPUT;
	}
	for (size_t w = 0; w < nw; w++) {
		size_t ns = r->workers.v[w].spans.n;

		if (ns > groups)
			groups = ns;
	}
	if (v->only_span)
		groups = 1;
	v->groups = groups;
	/* models stay alive for a whole span group when the distributed view
	 * compares them (several workers, or one that may communicate);
	 * otherwise each is freed before the next loads */
	/* MindSpore devices: their cluster analysis is the MindSpore job's
	 * (ms_cluster.h), not one over models built from timelines alone */
	keep = v->want_dist && !v->only_worker && nw >= 1 && !run_is_mindspore(r);
	for (size_t k = 0; k < groups; k++) {
		size_t loaded = 0;

		for (size_t w = 0; w < nw; w++) {
			const struct run_worker *wk = &r->workers.v[w];
			const struct run_span *s;
			struct cli_item *it = &items[w];
			int rc;

			if (v->only_worker && strcmp(wk->name, v->only_worker) != 0)
				continue;
			s = span_at(wk, k, v->only_span);
			if (!s)
				continue;
			it->run = r;
			it->worker = wk;
			it->span = s;
			it->passes = v->passes;
			rc = CLI_OK;
			if (load_visited(it, s->path, v, &rc)) {
				v->load_failed++;
				if (rc)
					status = rc;
				continue;
			}
			loaded++;
			if (visited)
				(*visited)++;
			if (v->on_profile) {
				int prc = v->on_profile(v->ctx, it);

				if (prc)
					rc = prc;
			}
			if (rc)
				status = rc;
			if (!keep)
				release_visited(v, it);
		}
		if (keep && loaded >= 1 && run_dist(r, v, items, nw, k))
			status = CLI_EINPUT;
		for (size_t w = 0; w < nw; w++)
			release_visited(v, &items[w]);
	}
	free(items);
	return status;
}

void cli_print_skipped(const struct run_set *rs)
{
	for (size_t i = 0; i < rs->skipped.n; i++) {
		char msg[600];

		snprintf(msg, sizeof(msg), "skipped: %s", rs->skipped.v[i].reason);
		cli_warn(rs->skipped.v[i].path, msg);
	}
	if (rs->skipped_more)
		fprintf(stderr, "nnscope: warning: and %zu more files skipped\n", rs->skipped_more);
}

/* Appends s to buf (size bytes, at *n), keeping the line bounded. */
static void list_add(char *buf, size_t size, size_t *n, const char *sep, const char *s)
{
	int k;

	if (*n >= size - 1)
		return;
	k = snprintf(buf + *n, size - *n, "%s%s", *n ? sep : "", s);
	if (k > 0)
		*n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

int cli_check_selection(const struct run_set *rs, const char *cmd, const char *only_run,
			const char *worker, const char *span)
{
	char list[1024];
	size_t n = 0, hit = 0;

	list[0] = 0;
	for (size_t i = 0; worker && i < rs->runs.n; i++) {
		const struct run *r = &rs->runs.v[i];

		if (only_run && strcmp(r->name, only_run) != 0)
			continue;
		for (size_t w = 0; w < r->workers.n; w++) {
			if (strcmp(r->workers.v[w].name, worker) == 0)
				hit++;
			list_add(list, sizeof(list), &n, ", ", r->workers.v[w].name);
		}
	}
	if (worker && !hit)
		return cli_usage_error(cmd, "--worker '%s' matches no worker; the workers are: %s",
				       worker, n ? list : "(none)");
	n = hit = 0;
	list[0] = 0;
	for (size_t i = 0; span && i < rs->runs.n; i++) {
		const struct run *r = &rs->runs.v[i];

		if (only_run && strcmp(r->name, only_run) != 0)
			continue;
		for (size_t w = 0; w < r->workers.n; w++) {
			const struct run_worker *wk = &r->workers.v[w];
			char item[300];
			size_t m = 0;

			if (worker && strcmp(wk->name, worker) != 0)
				continue;
			if (run_find_span(wk, span))
				hit++;
			item[0] = 0;
			for (size_t k = 0; k < wk->spans.n; k++)
				if (wk->spans.v[k].name)
					list_add(item, sizeof(item), &m, " ", wk->spans.v[k].name);
			{
				char line[400];

				snprintf(line, sizeof(line), "%s: %s", wk->name,
					 m ? item : "one trace, no spans");
				list_add(list, sizeof(list), &n, "; ", line);
			}
		}
	}
	if (span && !hit)
		return cli_usage_error(cmd, "--span '%s' matches no span; the spans are: %s", span,
				       n ? list : "(none)");
	return CLI_OK;
}
