/*
 * cmd_top.c - `nnscope top RUN`: follows the .nnst traces of a run while
 * they are written (output/live_json.h: one struct live_follow per
 * process's trace) and, every --interval, reads what they gained and
 * shows a compact summary (top_view.c): per rank steps, step times and
 * throughput, the slow-rank verdict (analysis/live_ranks.h), the top
 * operators and kernels of the last steps, CPU, GPU and memory, and the
 * hits of the --alert rules (analysis/live_alert.h). It stops by itself
 * once every trace has ended, after showing the final state, or at
 * SIGINT / SIGTERM, --once, --max-refreshes.
 *
 * The run is looked at again at each refresh (importers/run.h): a rank
 * that starts late joins, and a process's next trace (<host>_<pid>.2.nnst)
 * replaces its previous one.
 */
#include "cli/cli.h"
#include "cli/top.h"
#include "common/clock.h"
#include "common/num.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char USAGE[] =
    "Usage: nnscope top <run-dir> [options]\n"
    "\n"
    "Follows the .nnst traces of a run while the job writes them and shows,\n"
    "every interval, each rank's steps, step times and throughput, the slow rank,\n"
    "the top operators and kernels of the last steps, CPU, GPU and memory, and\n"
    "the alerts that fired. Exits when every trace has ended (or at Ctrl-C).\n"
    "\n"
    "Options:\n"
    "  -i, --interval S   seconds between refreshes (default 1; 0.05..3600)\n"
    "  -l, --last N       the last N completed steps (default 20; 1..128)\n"
    "  -a, --alert RULE   an alert rule, e.g. 'step_ms > 1.5*median',\n"
    "                     'data_pct >= 30', 'rank_pct > 20', 'behind > 5';\n"
    "                     repeatable (docs/CLI.md \"top\" has the grammar)\n"
    "      --once         one refresh, then exit\n"
    "      --json         one JSON line per refresh instead of the text view\n"
    "      --max-refreshes K\n"
    "                     exit after K refreshes\n"
    "  -h, --help         show this help\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int parse_interval(void *dst, const char *arg)
{
	double v;

	if (num_double(arg, strlen(arg), &v, NULL) || !(v >= 0.05 && v <= 3600))
		return cli_usage_error("top", "--interval wants seconds (0.05..3600), not '%s'",
				       arg);
	*(double *)dst = v;
	return CLI_CONTINUE;
}

static int parse_alert(void *dst, const char *arg)
{
	struct nns_err err;

	nns_err_clear(&err);
	if (live_alerts_add(dst, arg, &err))
		return cli_usage_error("top", "bad --alert '%s': %s", arg, err.msg);
	return CLI_CONTINUE;
}

void top_release(struct top *t)
{
	for (size_t i = 0; i < t->traces.n; i++) {
		live_follow_close(t->traces.v[i].f);
		free(t->traces.v[i].worker);
		free(t->traces.v[i].path);
	}
	vec_free(&t->traces);
	live_alerts_release(&t->alerts);
	live_ranks_release(&t->ranks);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The run of rs that `dir` is: the only one, else the one named by the
 * base name of dir (the directory itself). NULL when there are several. */
static const struct run *pick_run(const struct run_set *rs, const char *dir)
{
	char base[4096];
	const char *b;
	size_t n;

	if (rs->runs.n == 1)
		return &rs->runs.v[0];
	snprintf(base, sizeof(base), "%s", dir);
	for (n = strlen(base); n > 1 && base[n - 1] == '/';)
		base[--n] = 0;
	b = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
	for (size_t i = 0; i < rs->runs.n; i++)
		if (strcmp(rs->runs.v[i].name, b) == 0)
			return &rs->runs.v[i];
	return NULL;
}

/* The trace of worker w to follow: its last .nnst span, NULL if none. */
static const char *last_nnst(const struct run_worker *w)
{
	for (size_t k = w->spans.n; k-- > 0;)
		if (ends_with(w->spans.v[k].path, ".nnst"))
			return w->spans.v[k].path;
	return NULL;
}

/* Follows path for worker (a new trace, or the next one of a worker). */
static int follow(struct top *t, const char *worker, const char *path, int first)
{
	struct top_trace *tr = NULL, nt;
	struct live_follow *f;
	struct nns_err err;

	for (size_t i = 0; i < t->traces.n; i++)
		if (strcmp(t->traces.v[i].worker, worker) == 0)
			tr = &t->traces.v[i];
	if (tr && strcmp(tr->path, path) == 0)
		return CLI_OK;
	nns_err_clear(&err);
	if (live_follow_open(&f, NULL, path, &err)) {
		if (first)
			cli_error(path, err.msg);
		return CLI_EUSAGE;
	}
	if (tr) { /* the process's next trace replaces the previous one */
		char *p = strdup(path);

		if (!p) {
			live_follow_close(f);
			return CLI_EINPUT;
		}
		live_follow_close(tr->f);
		free(tr->path);
		tr->path = p;
		tr->f = f;
		return CLI_OK;
	}
	memset(&nt, 0, sizeof(nt));
	nt.f = f;
	nt.worker = strdup(worker);
	nt.path = strdup(path);
	if (!nt.worker || !nt.path || vec_push(&t->traces, nt)) {
		free(nt.worker);
		free(nt.path);
		live_follow_close(f);
		cli_error(NULL, "out of memory");
		return CLI_EINPUT;
	}
	return CLI_OK;
}

/* Looks at the run directory: new traces are followed. The first look
 * reports what is wrong (exit 2); later ones keep what they had. */
static int scan(struct top *t, int first)
{
	struct run_set rs;
	struct nns_err err;
	const struct run *r;
	struct stat st;
	size_t found = 0;
	int rc;

	nns_err_clear(&err);
	if (first && stat(t->dir, &st) != 0) {
		cli_error(t->dir, strerror(errno));
		return CLI_EUSAGE;
	}
	rc = run_discover(&rs, t->dir, NULL, &err);
	if (rc) {
		if (first)
			cli_error(t->dir, rc == NNS_ENOTFOUND ? "no .nnst trace here (nnscope top "
								"follows nnscope's own traces)"
							      : err.msg);
		run_set_release(&rs);
		return first ? CLI_EUSAGE : CLI_OK;
	}
	if (!(r = pick_run(&rs, t->dir))) {
		if (first) {
			fprintf(stderr, "nnscope: %s: holds %zu runs; give one of them:", t->dir,
				rs.runs.n);
			for (size_t i = 0; i < rs.runs.n && i < 20; i++)
				fprintf(stderr, " %s", rs.runs.v[i].dir);
			fprintf(stderr, "\n");
		}
		run_set_release(&rs);
		return first ? CLI_EUSAGE : CLI_OK;
	}
	rc = CLI_OK;
	for (size_t i = 0; i < r->workers.n; i++) {
		const char *path = last_nnst(&r->workers.v[i]);

		if (!path)
			continue;
		found++;
		if ((rc = follow(t, r->workers.v[i].name, path, first)) == CLI_EINPUT)
			break;
		if (!first)
			rc = CLI_OK; /* a trace that cannot be opened yet: tried again */
		else if (rc)
			break;
	}
	if (first && rc == CLI_OK && !found) {
		cli_error(t->dir, "no .nnst trace here (nnscope top follows nnscope's own traces; "
				  "analyse other traces with nnscope report)");
		rc = CLI_EUSAGE;
	}
	run_set_release(&rs);
	return rc;
}

int64_t top_trace_rank(const struct top *t, size_t i)
{
	const struct live *l = t->traces.v[i].f->live;

	return l->rank >= 0 ? l->rank : (int64_t)i;
}

/* Reads what every trace gained, then the verdict and the alerts. */
static int refresh(struct top *t)
{
	uint64_t before = t->alerts.fired;
	struct live_run_trace *rt;
	struct nns_err err;
	int rc = 0;

	t->all_ended = t->traces.n > 0;
	t->failed = 0;
	for (size_t i = 0; i < t->traces.n; i++) {
		struct top_trace *tr = &t->traces.v[i];

		nns_err_clear(&err);
		live_follow_refresh(tr->f, &err); /* a sticky error stays in f->err */
		if (tr->f->failed)
			t->failed = 1;
		if (strcmp(top_trace_state(tr), "ended") != 0 && !tr->f->failed)
			t->all_ended = 0;
	}
	if (!(rt = calloc(t->traces.n + 1, sizeof(*rt)))) {
		cli_error(NULL, "out of memory");
		return CLI_EINPUT;
	}
	for (size_t i = 0; i < t->traces.n; i++) {
		rt[i].l = t->traces.v[i].f->live;
		rt[i].worker = t->traces.v[i].worker;
	}
	nns_err_clear(&err);
	rc = live_run_check(rt, t->traces.n, (size_t)t->last, &t->ranks, &t->alerts, &err);
	for (size_t i = 0; i < t->traces.n; i++)
		t->traces.v[i].is_rank = rt[i].is_rank;
	free(rt);
	if (rc < 0) {
		cli_error(NULL, err.msg);
		return CLI_EINPUT;
	}
	t->new_hits = (int)(t->alerts.fired - before);
	t->refresh++;
	t->wall_ns = clock_real_ns();
	return CLI_OK;
}

static int show(struct top *t)
{
	if (t->json)
		return top_print_json(stdout, t);
	if (t->tty)
		fputs("\033[H\033[2J", stdout); /* home, clear: redrawn in place */
	else if (t->refresh > 1)
		fputc('\n', stdout);
	return top_print_text(stdout, t);
}

/* Sleeps until `at` (CLOCK_MONOTONIC ns); 1 when a signal asks to stop. */
static int sleep_until(int64_t at)
{
	struct timespec ts = {(time_t)(at / 1000000000), (long)(at % 1000000000)};

	while (!stop_signal && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return stop_signal != 0;
}

static int top_loop(struct top *t)
{
	int rc;

	for (;;) {
		int64_t started = clock_mono_ns();

		if (t->refresh > 0)
			scan(t, 0);
		if ((rc = refresh(t)) != CLI_OK)
			return rc;
		if (show(t)) {
			cli_error(NULL, "cannot write the view (stdout closed?)");
			return CLI_EINPUT;
		}
		if (t->once || t->all_ended || stop_signal ||
		    (t->max_refreshes > 0 && (long)t->refresh >= t->max_refreshes))
			break;
		if (sleep_until(started + (int64_t)(t->interval_s * 1e9)))
			break;
	}
	return t->failed ? CLI_EINPUT : CLI_OK;
}

int cmd_top(int argc, char **argv)
{
	static const struct cli_cmd cmd = {"top", USAGE, 0};
	struct top t;
	struct sigaction sa, old_int, old_term;
	int first, rc;

	memset(&t, 0, sizeof(t));
	live_alerts_init(&t.alerts);
	t.interval_s = 1;
	t.last = LIVE_RANKS_LAST_DEFAULT;
	const struct cli_opt opts[] = {
	    CLI_OPT_CALL("interval", 'i', 1, parse_interval, &t.interval_s),
	    CLI_OPT_LONG("last", 'l', &t.last, 1, LIVE_RECENT_STEPS, "1..128"),
	    CLI_OPT_CALL("alert", 'a', 1, parse_alert, &t.alerts),
	    CLI_OPT_FLAG("once", 'o' | CLI_LONG_ONLY, &t.once, 1),
	    CLI_OPT_FLAG("json", 'J' | CLI_LONG_ONLY, &t.json, 1),
	    CLI_OPT_LONG("max-refreshes", 'K' | CLI_LONG_ONLY, &t.max_refreshes, 1, 1000000000,
			 "a positive number"),
	    CLI_OPT_END,
	};

	if ((rc = cli_parse_options(&cmd, opts, argc, argv, &first)) != CLI_CONTINUE ||
	    (rc = cli_one_input("top", argc, first, "missing the run directory")) != CLI_CONTINUE)
		goto out;
	t.dir = argv[first];
	t.tty = isatty(STDOUT_FILENO);
	t.color = cli_stdout_color();
	t.width = cli_stdout_width();
	if ((rc = scan(&t, 1)) != CLI_OK)
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the sleep wakes up */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = top_loop(&t);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	fflush(stdout);
out:
	top_release(&t);
	return rc;
}
