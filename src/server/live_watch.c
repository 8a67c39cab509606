/*
 * live_watch.c - the run-level live answers of `nnscope serve`
 * (live_watch.h): one check of a run (its follows locked in the
 * registry's order, live_run_check over them, the new hits printed), the
 * watcher thread that checks every live run once a second when there are
 * --alert rules, and the live cluster and alerts documents.
 */
#include "server/live_watch.h"

#include "analysis/live_run.h"
#include "common/clock.h"
#include "output/live_ranks_json.h"
#include "server/live_entries.h"
#include "server/server.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCH_PERIOD_NS 1000000000LL
#define WATCH_RUNS_MAX 256   /* live runs checked per round */
#define WATCH_RANKS_MAX 4096 /* traces of one run */
#define WATCH_LAST 20	     /* the verdict's window, as top's default */
#define WATCH_HITS_SHOWN 50  /* hits in a document */

/* The alert state of one run. */
struct run_alerts {
	char *run;
	struct live_alerts a;
	uint64_t printed; /* hits printed so far (a.fired when caught up) */
};

struct live_watch {
	struct server *s;
	char **rules; /* copies */
	size_t nrules;
	pthread_mutex_t mu; /* guards runs and each run's alerts */
	VEC(struct run_alerts) runs;
	pthread_t th;
	int th_up;
	pthread_mutex_t stop_mu;
	pthread_cond_t stop_cv;
	int stop;
};

/* The alert state of run (created with the rules), NULL without rules or
 * memory; w->mu held. */
static struct live_alerts *alerts_of_locked(struct live_watch *w, const char *run,
					    struct run_alerts **out)
{
	struct run_alerts ra;

	*out = NULL;
	if (!w->nrules)
		return NULL;
	for (size_t i = 0; i < w->runs.n; i++)
		if (strcmp(w->runs.v[i].run, run) == 0)
			return &(*out = &w->runs.v[i])->a;
	memset(&ra, 0, sizeof(ra));
	live_alerts_init(&ra.a);
	if (!(ra.run = strdup(run)))
		return NULL;
	for (size_t i = 0; i < w->nrules; i++)
		if (live_alerts_add(&ra.a, w->rules[i], NULL)) { /* checked at start */
			live_alerts_release(&ra.a);
			free(ra.run);
			return NULL;
		}
	if (vec_push(&w->runs, ra)) {
		live_alerts_release(&ra.a);
		free(ra.run);
		return NULL;
	}
	*out = &w->runs.v[w->runs.n - 1];
	return &(*out)->a;
}

/* Prints the hits of ra not printed yet (w->mu held). */
static void print_hits_locked(const struct server *s, struct run_alerts *ra)
{
	uint64_t fresh = ra->a.fired - ra->printed;

	if (fresh > ra->a.nhits)
		fresh = ra->a.nhits;
	(void)s; /* said even with --quiet: they are what --alert asked for */
	for (size_t i = ra->a.nhits - (size_t)fresh; i < ra->a.nhits; i++)
		fprintf(stderr, "nnscope serve: alert: run %s: %s\n", ra->run,
			live_alerts_hit(&ra->a, i)->message);
	ra->printed = ra->a.fired;
}

/* The alerts document of a run's state a, or, when it has none (no rules,
 * or never checked), of the rules with no hit; w->mu held. */
static void alerts_json_locked(struct jsonw *doc, const struct live_watch *w,
			       const struct live_alerts *a)
{
	struct live_alerts none;

	if (a) {
		live_alerts_json(doc, a, WATCH_HITS_SHOWN);
		return;
	}
	live_alerts_init(&none);
	for (size_t i = 0; i < w->nrules; i++)
		live_alerts_add(&none, w->rules[i], NULL); /* checked at start */
	live_alerts_json(doc, &none, WATCH_HITS_SHOWN);
	live_alerts_release(&none);
}

/* Checks run (span: as live_collect) and, when doc is not NULL, writes
 * the live cluster document into it. 0 when no entry of run is live,
 * 1 when checked, NNS_ENOMEM. */
static int check_run(struct server *s, const char *run, const char *span, struct jsonw *doc)
{
	struct live_watch *w = s->watch;
	struct reg_live **lvs = calloc(WATCH_RANKS_MAX, sizeof(*lvs));
	struct live_run_trace *t = calloc(WATCH_RANKS_MAX, sizeof(*t));
	struct live_ranks ranks;
	struct run_alerts *ra = NULL;
	struct live_alerts *a;
	struct nns_err err;
	size_t n = 0, k = 0;
	int any_live = 0, rc = 1;

	memset(&ranks, 0, sizeof(ranks));
	live_ranks_release(&ranks);
	if (!lvs || !t) {
		rc = NNS_ENOMEM;
		goto out;
	}
	n = live_collect(&s->reg, run, span, lvs, WATCH_RANKS_MAX, &any_live);
	if (!any_live) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++) { /* in the registry's order */
		live_lock(&s->reg, lvs[i]);
		if (lvs[i]->f) {
			t[k].l = lvs[i]->f->live;
			t[k++].worker = lvs[i]->entry->worker;
		}
	}
	nns_err_clear(&err);
	pthread_mutex_lock(&w->mu);
	a = alerts_of_locked(w, run, &ra);
	if (live_run_check(t, k, WATCH_LAST, &ranks, a, &err) < 0)
		rc = NNS_ENOMEM;
	else if (ra)
		print_hits_locked(s, ra);
	if (doc && rc == 1) {
		jsonw_obj_begin(doc);
		jsonw_kbool(doc, "live", 1);
		jsonw_kstr(doc, "run", run);
		jsonw_kstr(doc, "span", span ? span : "");
		jsonw_kint(doc, "last", WATCH_LAST);
		jsonw_key(doc, "verdict");
		live_ranks_json(doc, &ranks);
		jsonw_key(doc, "alerts");
		alerts_json_locked(doc, w, a);
		jsonw_obj_end(doc);
	}
	pthread_mutex_unlock(&w->mu);
	for (size_t i = 0; i < n; i++)
		pthread_mutex_unlock(&lvs[i]->mu);
out:
	for (size_t i = 0; i < n; i++)
		live_release(&s->reg, lvs[i]);
	live_ranks_release(&ranks);
	free(lvs);
	free(t);
	return rc;
}

static void *watcher(void *arg)
{
	struct live_watch *w = arg;

	for (;;) {
		char *runs[WATCH_RUNS_MAX];
		struct timespec until;
		size_t n;
		int stop;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_mutex_lock(&w->stop_mu);
		while (!w->stop &&
		       pthread_cond_timedwait(&w->stop_cv, &w->stop_mu, &until) != ETIMEDOUT)
			;
		stop = w->stop;
		pthread_mutex_unlock(&w->stop_mu);
		if (stop)
			return NULL;
		/* runs that started since, or stopped being live, without a
		 * page asking for /api/runs */
		reg_rescan_if_stale(&w->s->reg);
		n = live_runs(&w->s->reg, runs, WATCH_RUNS_MAX);
		for (size_t i = 0; i < n; i++) {
			check_run(w->s, runs[i], "*", NULL);
			free(runs[i]);
		}
	}
}

int live_watch_start(struct server *s, const char *const *rules, size_t n, struct nns_err *err)
{
	struct live_watch *w = calloc(1, sizeof(*w));
	struct live_alerts check;

	s->watch = NULL;
	if (!w || (n && !(w->rules = calloc(n, sizeof(*w->rules))))) {
		free(w);
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	w->s = s;
	pthread_mutex_init(&w->mu, NULL);
	pthread_mutex_init(&w->stop_mu, NULL);
	pthread_cond_init(&w->stop_cv, NULL);
	s->watch = w;
	live_alerts_init(&check);
	for (size_t i = 0; i < n; i++) {
		struct nns_err e;
		int rc;

		nns_err_clear(&e);
		if ((rc = live_alerts_add(&check, rules[i], &e))) {
			live_alerts_release(&check);
			live_watch_stop(s);
			return nns_err_set(err, rc, "--alert '%.200s': %s", rules[i], e.msg);
		}
		if (!(w->rules[i] = strdup(rules[i]))) {
			live_alerts_release(&check);
			live_watch_stop(s);
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
		w->nrules++;
	}
	live_alerts_release(&check);
	if (n && pthread_create(&w->th, NULL, watcher, w) != 0) {
		live_watch_stop(s);
		return nns_err_set(err, NNS_ENOMEM, "cannot start the alert watcher thread");
	}
	w->th_up = n > 0;
	return NNS_OK;
}

void live_watch_stop(struct server *s)
{
	struct live_watch *w = s->watch;

	if (!w)
		return;
	if (w->th_up) {
		pthread_mutex_lock(&w->stop_mu);
		w->stop = 1;
		pthread_cond_signal(&w->stop_cv);
		pthread_mutex_unlock(&w->stop_mu);
		pthread_join(w->th, NULL);
	}
	for (size_t i = 0; i < w->runs.n; i++) {
		live_alerts_release(&w->runs.v[i].a);
		free(w->runs.v[i].run);
	}
	vec_free(&w->runs);
	for (size_t i = 0; i < w->nrules; i++)
		free(w->rules[i]);
	free(w->rules);
	pthread_mutex_destroy(&w->mu);
	pthread_mutex_destroy(&w->stop_mu);
	pthread_cond_destroy(&w->stop_cv);
	free(w);
	s->watch = NULL;
}

int live_watch_cluster(struct server *s, struct srv_req *q, const char *run, const char *span)
{
	struct jsonw w;
	int rc;

	if (jsonw_init_mem(&w, 0, 0)) {
		srv_error(q, 503, "out of memory");
		return 1;
	}
	rc = check_run(s, run, span, &w);
	if (rc == 0) {
		jsonw_release(&w);
		return 0;
	}
	if (rc < 0) {
		jsonw_release(&w);
		srv_error(q, 503, "out of memory");
		return 1;
	}
	srv_reply_json(q, &w);
	return 1;
}

void api_live_alerts(struct server *s, struct srv_req *q)
{
	const char *run = srv_arg(q, "run");
	struct live_watch *lw = s->watch;
	const struct live_alerts *a = NULL;
	char *runs[WATCH_RUNS_MAX];
	size_t n;
	int live = 0;
	struct jsonw w;

	if (!run)
		return srv_error(q, 400, "missing parameter 'run'");
	reg_rescan_if_stale(&s->reg);
	n = live_runs(&s->reg, runs, WATCH_RUNS_MAX);
	for (size_t i = 0; i < n; i++) {
		live |= strcmp(runs[i], run) == 0;
		free(runs[i]);
	}
	if (jsonw_init_mem(&w, 0, 0))
		return srv_error(q, 503, "out of memory");
	pthread_mutex_lock(&lw->mu);
	for (size_t i = 0; i < lw->runs.n && !a; i++)
		if (strcmp(lw->runs.v[i].run, run) == 0)
			a = &lw->runs.v[i].a;
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "run", run);
	jsonw_kbool(&w, "live", live);
	jsonw_key(&w, "alerts");
	alerts_json_locked(&w, lw, a);
	jsonw_obj_end(&w);
	pthread_mutex_unlock(&lw->mu);
	srv_reply_json(q, &w);
}
