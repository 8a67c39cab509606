/*
 * routes.c - the JSON API of `nnscope serve` (docs/SERVER.md): runs,
 * per-span views (from the loaded profile, or the disk cache), the
 * distributed and diff views, and the trace level-of-detail queries.
 *
 * Parameters are names looked up in the registry, never paths. A span
 * that is not loaded yet is queued and answered 202 with its progress
 * (which file, how far, why it is slow); /api/loads lists every load. A
 * live span (a .nnst being written, live_entries.h) is never loaded: its
 * live views come from routes_live.c, its Trace from a snapshot, and the
 * other views answer 409 until it ends.
 */
#include "server/live_watch.h"
#include "server/server.h"
#include "output/jsonw.h"
#include "analysis/an_ms.h"
#include "output/ms_parallel_json.h"
#include "output/output.h"
#include "output/schema_page.h"
#include "importers/ms_timeline.h"
#include "server/live_entries.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUP 256
#define MAX_NAME 4096
#define MAX_TRACKS 4096
#define MAX_LOADS 64

typedef void (*view_fn)(struct jsonw *w, const struct an_profile *p);

/* fn NULL: the overview, which also names its source (api_view). */
static const struct {
	const char *name;
	view_fn fn;
} views[] = {
    {"overview", NULL},		 {"operators", out_json_operators}, {"kernels", out_json_kernels},
    {"memory", out_json_memory}, {"modules", out_json_modules},
};
/* ... and every row of out_views (src/output/views.c) */

static int name_ok(struct srv_req *q, const char *key, const char *v, int required)
{
	if (!v) {
		if (required)
			srv_error(q, 400, "missing parameter '%s'", key);
		return !required;
	}
	if (strlen(v) > MAX_NAME) {
		srv_error(q, 400, "parameter '%s' is too long", key);
		return 0;
	}
	return 1;
}

/* srv_entry_arg (server.h). */
struct reg_entry *srv_entry_arg(struct server *s, struct srv_req *q, const char *suffix)
{
	char k_run[8], k_worker[12], k_span[10];
	const char *run, *worker, *span;
	struct reg_entry *e;

	snprintf(k_run, sizeof(k_run), "run%s", suffix);
	snprintf(k_worker, sizeof(k_worker), "worker%s", suffix);
	snprintf(k_span, sizeof(k_span), "span%s", suffix);
	run = srv_arg(q, k_run);
	worker = srv_arg(q, k_worker);
	span = srv_arg(q, k_span);
	if (!name_ok(q, k_run, run, 1) || !name_ok(q, k_worker, worker, 1) ||
	    !name_ok(q, k_span, span, 0))
		return NULL;
	e = reg_find(&s->reg, run, worker, span);
	if (!e)
		srv_error(q, 404, "no worker '%.200s'%s%.64s%s in run '%.200s'", worker,
			  span && span[0] ? " span '" : "", span ? span : "",
			  span && span[0] ? "'" : "", run);
	return e;
}

/* The status of a span that could not be loaded: 409 still being written
 * (live), 503 out of memory or past the load deadline (--load-timeout),
 * 410 file replaced while served, else 422 (the trace itself cannot be
 * read: the message says where and why). */
static int failed_status(const struct reg_progress *pr)
{
	return pr->state == REG_LIVE			     ? 409
	       : pr->err_code == NNS_ENOMEM || pr->timed_out ? 503
	       : pr->err_code == NNS_ENOTFOUND		     ? 410
							     : 422;
}

/* Takes a reference on an entry that has what need reads (enum reg_need:
 * READY, or for the trace endpoints and the views, earlier); otherwise
 * answers 202 or an error. */
static int acquire_as(struct server *s, struct srv_req *q, struct reg_entry *e, int need)
{
	struct reg_progress pr;
	int st = reg_acquire_for(&s->reg, e, &pr, need);

	if (st == REG_READY)
		return 1;
	if (st == REG_FAILED || st == REG_LIVE)
		srv_error(q, failed_status(&pr), "%s", pr.err);
	else if (!srv_hold(q, e, need))
		srv_progress(q, &pr);
	return 0;
}

static int acquire(struct server *s, struct srv_req *q, struct reg_entry *e)
{
	return acquire_as(s, q, e, REG_NEED_ALL);
}

static void api_runs(struct server *s, struct srv_req *q)
{
	size_t len = 0;
	char *doc = reg_runs_json(&s->reg, &len);

	if (!doc)
		srv_error(q, 503, "out of memory");
	else
		srv_reply(q, 200, "application/json", doc, len);
}

/* ms_marey with its step (step=N, default the job's first): from the
 * Marey cache, else computed and cached; a bad step is a 400 naming the
 * job's steps. Header X-Nnscope-Cache: hit | miss. */
static void api_marey(struct server *s, struct srv_req *q, struct reg_entry *e)
{
	const char *step = srv_arg(q, "step");
	struct ms_marey_doc d;
	struct jsonw w;
	char *doc;
	size_t len = 0;

	if (step && strlen(step) > 40)
		return srv_error(q, 400, "parameter 'step' is too long");
	if (!acquire(s, q, e))
		return;
	if (!e->p->ms) {
		reg_put(&s->reg, e);
		if (jsonw_init_mem(&w, 0, 0))
			return srv_error(q, 503, "out of memory");
		out_json_ms_marey_view(&w, e->p); /* "not a MindSpore device" */
		return srv_reply_json(q, &w);
	}
	if ((doc = mc_get(&s->marey, e->p->ms->src.dir, step ? step : "", &len))) {
		reg_put(&s->reg, e);
		srv_reply(q, 200, "application/json", doc, len);
		return srv_header(q, "X-Nnscope-Cache", "hit");
	}
	ms_marey_doc_load(&d, &e->p->ms->src, step);
	if (d.rc == NNS_EINVAL || d.rc == NNS_ENOMEM) {
		reg_put(&s->reg, e);
		srv_error(q, d.rc == NNS_EINVAL ? 400 : 503, "%s", d.err.msg);
		return ms_marey_doc_release(&d);
	}
	if (jsonw_init_mem(&w, 0, 0)) {
		reg_put(&s->reg, e);
		ms_marey_doc_release(&d);
		return srv_error(q, 503, "out of memory");
	}
	out_json_ms_marey_doc(&w, &d);
	ms_marey_doc_release(&d);
	if (jsonw_finish(&w, NULL) != NNS_OK || !(doc = jsonw_take(&w, &len))) {
		reg_put(&s->reg, e);
		jsonw_release(&w);
		return srv_error(q, 500, "cannot write the answer");
	}
	jsonw_release(&w);
	mc_put(&s->marey, e->p->ms->src.dir, step ? step : "", doc, len);
	reg_put(&s->reg, e);
	srv_reply(q, 200, "application/json", doc, len);
	srv_header(q, "X-Nnscope-Cache", "miss");
}

static void api_view(struct server *s, struct srv_req *q)
{
	const char *view = srv_arg(q, "view");
	struct reg_entry *e;
	struct jsonw w;
	const struct out_view *more = NULL;
	struct nns_err err;
	view_fn fn = NULL;
	size_t i, len = 0;
	char *doc;

	if (!view)
		return srv_error(q, 400, "missing parameter 'view'");
	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(views[i].name, view) == 0)
			break;
	if (i < sizeof(views) / sizeof(views[0]))
		fn = views[i].fn;
	else if ((more = out_view_find(view)) != NULL)
		fn = more->fn;
	else
		return srv_error(q, 404, "no view '%.64s'", view);
	if (!(e = srv_entry_arg(s, q, "")))
		return;
	if (live_entry_is_live(&s->reg, e) && api_view_live(s, q, e, view))
		return; /* its live document, or 409 */
	if (!strcmp(view, "ms_marey"))
		return api_marey(s, q, e);
	/* a span analysed before: its cache answers without loading it (or
	 * without the passes of one mapped from its snapshot) */
	if ((doc = reg_cached_view(&s->reg, e, view, &len)) != NULL)
		return srv_reply(q, 200, "application/json", doc, len);
	/* a view takes the profile once its base passes have run, before the
	 * loader runs the others and writes the cache (an HTA writer runs its
	 * own pass) */
	if (!acquire_as(s, q, e, REG_NEED_VIEW))
		return;
	nns_err_clear(&err);
	if (reg_profile_base(e, &err) != NNS_OK) {
		reg_put(&s->reg, e);
		return srv_error(q, 500, "%s", err.msg);
	}
	if (jsonw_init_mem(&w, 0, 0)) {
		reg_put(&s->reg, e);
		return srv_error(q, 503, "out of memory");
	}
	if (!fn) {
		struct out_source src = {e->worker, e->span[0] ? e->span : NULL, e->path, e->run};

		out_json_overview(&w, e->p, &src);
	} else {
		fn(&w, e->p);
	}
	reg_put(&s->reg, e);
	srv_reply_json(q, &w);
}

/* srv_acquire_all (server.h): every entry, or none and an answer. */
int srv_acquire_all(struct server *s, struct srv_req *q, struct reg_entry **es, size_t n)
{
	struct reg_progress *pr = malloc(2 * sizeof(*pr)), *worst;
	unsigned char *held = calloc(n ? n : 1, 1);
	double total = 0;
	size_t ready = 0, waiting = 0, slowest = 0;
	int failed = 0;

	if (!pr || !held) {
		free(pr);
		free(held);
		srv_error(q, 503, "out of memory");
		return 0;
	}
	worst = pr + 1;
	for (size_t i = 0; i < n; i++) {
		int st = reg_acquire(&s->reg, es[i], pr);

		held[i] = st == REG_READY;
		if (held[i]) {
			ready++;
			total += 1;
		} else if (st == REG_FAILED || st == REG_LIVE) {
			if (!failed)
				*worst = *pr;
			failed = 1;
		} else if (!failed) {
			/* the answer shows the slowest of the spans not ready */
			total += pr->progress;
			if (!waiting++ || reg_progress_worse(pr, worst)) {
				*worst = *pr;
				slowest = i;
			}
		}
	}
	/* what is asked of them reads their profiles (reg_profile) */
	for (size_t i = 0; i < n && ready == n && !failed; i++) {
		struct nns_err err;

		nns_err_clear(&err);
		if (reg_profile(es[i], &err) != NNS_OK) {
			memset(worst, 0, sizeof(*worst));
			worst->state = REG_FAILED;
			worst->err_code = err.code;
			snprintf(worst->err, sizeof(worst->err), "%s", err.msg);
			failed = 1;
			ready = 0; /* held ones are put below */
		}
	}
	if (ready < n) {
		for (size_t i = 0; i < n; i++)
			if (held[i])
				reg_put(&s->reg, es[i]);
		if (failed) {
			srv_error(q, failed_status(worst), "%s", worst->err);
		} else if (!srv_hold(q, es[slowest], REG_NEED_ALL)) {
			worst->progress = total / (double)n;
			srv_progress(q, worst);
		}
	}
	free(held);
	free(pr);
	return ready == n;
}

static void put_all(struct server *s, struct reg_entry **es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		reg_put(&s->reg, es[i]);
}

static void api_distributed(struct server *s, struct srv_req *q)
{
	const char *run = srv_arg(q, "run"), *span = srv_arg(q, "span");
	struct reg_entry *es[MAX_GROUP];
	const struct an_profile *ps[MAX_GROUP];
	const char *names[MAX_GROUP];
	struct an_dist d;
	struct nns_err err;
	struct jsonw w;
	size_t n;

	if (!name_ok(q, "run", run, 1) || !name_ok(q, "span", span, 0))
		return;
	n = reg_find_group(&s->reg, run, span, es, MAX_GROUP);
	if (n == 0)
		return srv_error(q, 404, "no run '%.200s'%s%.64s%s", run,
				 span ? " with span '" : "", span ? span : "", span ? "'" : "");
	if (!srv_acquire_all(s, q, es, n))
		return;
	for (size_t i = 0; i < n; i++) {
		ps[i] = es[i]->p;
		names[i] = es[i]->worker;
	}
	nns_err_clear(&err);
	memset(&d, 0, sizeof(d));
	if (an_dist_compute(&d, ps, names, n, &err) != NNS_OK) {
		put_all(s, es, n);
		an_dist_release(&d);
		return srv_error(q, 500, "%s", err.msg);
	}
	put_all(s, es, n);
	if (jsonw_init_mem(&w, 0, 0)) {
		an_dist_release(&d);
		return srv_error(q, 503, "out of memory");
	}
	out_json_dist(&w, &d, span && span[0] ? span : NULL);
	an_dist_release(&d);
	srv_reply_json(q, &w);
}

static void api_diff(struct server *s, struct srv_req *q)
{
	struct reg_entry *es[2];
	struct an_diff d;
	struct nns_err err;
	struct jsonw w;
	char base[512], exp[512];
	int rc;

	if (!(es[0] = srv_entry_arg(s, q, "")) || !(es[1] = srv_entry_arg(s, q, "2")))
		return;
	if (!srv_acquire_all(s, q, es, es[0] == es[1] ? 1 : 2))
		return;
	nns_err_clear(&err);
	memset(&d, 0, sizeof(d));
	rc = an_diff_compute(&d, es[0]->p, es[1]->p, &err);
	put_all(s, es, es[0] == es[1] ? 1 : 2);
	if (rc != NNS_OK) {
		an_diff_release(&d);
		return srv_error(q, 500, "%s", err.msg);
	}
	snprintf(base, sizeof(base), "%s/%s%s%s", es[0]->run, es[0]->worker,
		 es[0]->span[0] ? "." : "", es[0]->span);
	snprintf(exp, sizeof(exp), "%s/%s%s%s", es[1]->run, es[1]->worker,
		 es[1]->span[0] ? "." : "", es[1]->span);
	if (jsonw_init_mem(&w, 0, 0)) {
		an_diff_release(&d);
		return srv_error(q, 503, "out of memory");
	}
	out_json_diff(&w, &d, base, exp);
	an_diff_release(&d);
	srv_reply_json(q, &w);
}

/* ---- trace -------------------------------------------------------------------- */

static int int_arg(struct srv_req *q, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const char *v = srv_arg(q, key);
	char *end;
	long long x;

	if (!v || !*v) {
		srv_error(q, 400, "missing parameter '%s'", key);
		return 0;
	}
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end || x < min || x > max) {
		srv_error(q, 400, "parameter '%s' wants an integer in [%lld, %lld], not '%.40s'",
			  key, (long long)min, (long long)max, v);
		return 0;
	}
	*out = x;
	return 1;
}

/* Parses "1,5,7" into tracks; *n = 0 when absent. */
static int tracks_arg(struct srv_req *q, uint32_t *tracks, size_t *n)
{
	const char *v = srv_arg(q, "tracks"), *p;

	*n = 0;
	if (!v || !*v)
		return 1;
	for (p = v; *p;) {
		char *end;
		unsigned long x;

		errno = 0;
		x = strtoul(p, &end, 10);
		if (end == p || errno || x > UINT32_MAX || *n >= MAX_TRACKS ||
		    (*end && *end != ',')) {
			srv_error(q, 400, "parameter 'tracks' wants track ids like 1,5,7");
			return 0;
		}
		tracks[(*n)++] = (uint32_t)x;
		p = *end ? end + 1 : end;
	}
	return 1;
}

/* An msprof timeline rank's view (`timeline`: "summary/apart/0,2", see
 * ms_timeline.h): the entry that holds it, e itself for the default view
 * (detail, merged, every sub-graph), or NULL after answering 400 / 503. */
static struct reg_entry *timeline_arg(struct server *s, struct srv_req *q, struct reg_entry *e)
{
	const char *v = srv_arg(q, "timeline");
	struct mstl_opts o;
	struct reg_entry *x;
	char canon[600];

	if (!v || !*v)
		return e;
	if (!name_ok(q, "timeline", v, 1))
		return NULL;
	if (mstl_opts_parse(v, &o)) {
		srv_error(
		    q, 400,
		    "parameter 'timeline' wants summary|detail/merged|apart/all|<sub-graph ids>, "
		    "not '%.100s'",
		    v);
		return NULL;
	}
	if (!mstl_is_rank_dir(&s->reg.root, e->path)) {
		srv_error(q, 400, "worker '%.200s' is not a rank of an msprof timeline", e->worker);
		return NULL;
	}
	mstl_opts_format(&o, canon, sizeof(canon));
	if (strcmp(canon, "detail/merged/all") == 0)
		return e;
	if (!(x = reg_variant(&s->reg, e, canon)))
		srv_error(q, 503, "too many timeline views or out of memory");
	return x;
}

static void api_trace(struct server *s, struct srv_req *q, const char *what)
{
	static const int64_t TMAX = (int64_t)1 << 62;
	struct reg_entry *e;
	struct nns_err err;
	struct jsonw w;
	uint32_t *tracks = NULL;
	size_t nt = 0;
	int64_t t0 = 0, t1 = 0, px = 0, id = 0;
	int rc = NNS_OK;

	if (strcmp(what, "meta") && strcmp(what, "window") && strcmp(what, "event") &&
	    strcmp(what, "summary"))
		return srv_error(q, 404, "no trace endpoint '%.64s'", what);
	if (!(e = srv_entry_arg(s, q, "")) || !(e = timeline_arg(s, q, e)))
		return;
	/* a live trace: the snapshot of it that answers (live_entries.h) */
	if (!(e = live_trace_entry(&s->reg, e)))
		return srv_error(q, 503, "out of memory");
	if (!strcmp(what, "window") &&
	    (!int_arg(q, "t0", -TMAX, TMAX, &t0) || !int_arg(q, "t1", -TMAX, TMAX, &t1) ||
	     !int_arg(q, "px", 1, 8192, &px)))
		return;
	if (!strcmp(what, "summary") &&
	    (!int_arg(q, "t0", -TMAX, TMAX, &t0) || !int_arg(q, "t1", -TMAX, TMAX, &t1)))
		return;
	if (!strcmp(what, "event") && !int_arg(q, "id", 0, INT64_MAX, &id))
		return;
	if (!strcmp(what, "window") || !strcmp(what, "summary")) {
		tracks = malloc(MAX_TRACKS * sizeof(*tracks));
		if (!tracks)
			return srv_error(q, 503, "out of memory");
		if (!tracks_arg(q, tracks, &nt)) {
			free(tracks);
			return;
		}
	}
	if (!acquire_as(s, q, e, REG_NEED_TRACE)) {
		free(tracks);
		return;
	}
	if (jsonw_init_mem(&w, 0, 0)) {
		reg_put(&s->reg, e);
		free(tracks);
		return srv_error(q, 503, "out of memory");
	}
	nns_err_clear(&err);
	if (!strcmp(what, "meta")) {
		trace_meta_json(e->ix, &w);
	} else if (!strcmp(what, "window")) {
		struct trace_window_q wq = {t0, t1, (int)px, nt ? tracks : NULL, nt};

		rc = trace_window_json(e->ix, &wq, &w, &err);
	} else if (!strcmp(what, "event")) {
		rc = trace_event_json(e->ix, id, &w, &err);
	} else {
		rc = trace_summary_json(e->ix, t0, t1, nt ? tracks : NULL, nt, &w, &err);
	}
	reg_put(&s->reg, e);
	free(tracks);
	if (rc != NNS_OK) {
		jsonw_release(&w);
		return srv_error(q,
				 rc == NNS_ENOTFOUND ? 404
				 : rc == NNS_EINVAL  ? 400
						     : 500,
				 "%s", err.msg);
	}
	srv_reply_json(q, &w);
}

/* The loads queued or under way: which file, how far, for how long, and
 * why a slow one is slow (docs/SERVER.md). */
static void api_loads(struct server *s, struct srv_req *q)
{
	struct reg_progress *ls = calloc(MAX_LOADS, sizeof(*ls));
	struct jsonw w;
	size_t n;

	if (!ls || jsonw_init_mem(&w, 0, 0)) {
		free(ls);
		return srv_error(q, 503, "out of memory");
	}
	n = reg_loads(&s->reg, ls, MAX_LOADS);
	jsonw_obj_begin(&w);
	jsonw_kint(&w, "lanes", s->reg.lanes);
	jsonw_kint(&w, "max_loads", s->reg.max_loads);
	jsonw_key(&w, "loads");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(&w);
		srv_json_load(&w, &ls[i]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	free(ls);
	srv_reply_json(q, &w);
}

/* The result tables' columns and the step-time roles for the page
 * (src/output/schema_page.c); the same for every run. */
static void api_schema(struct srv_req *q)
{
	struct jsonw w;

	if (jsonw_init_mem(&w, 0, 0))
		return srv_error(q, 503, "out of memory");
	out_json_schema(&w);
	srv_reply_json(q, &w);
}

void routes_api(struct server *s, struct srv_req *q, const char *url)
{
	const char *p = url + 5;

	if (!strcmp(p, "runs"))
		api_runs(s, q);
	else if (!strcmp(p, "view"))
		api_view(s, q);
	else if (!strcmp(p, "live"))
		api_live(s, q);
	else if (!strcmp(p, "live_alerts"))
		api_live_alerts(s, q);
	else if (!strcmp(p, "distributed"))
		api_distributed(s, q);
	else if (!strcmp(p, "diff"))
		api_diff(s, q);
	else if (!strcmp(p, "schema"))
		api_schema(q);
	else if (!strcmp(p, "loads"))
		api_loads(s, q);
	else if (!strcmp(p, "cluster"))
		api_cluster(s, q);
	else if (!strcmp(p, "cluster_jobs"))
		api_cluster_jobs(s, q);
	else if (!strncmp(p, "trace/", 6))
		api_trace(s, q, p + 6);
	else
		srv_error(q, 404, "no API endpoint '%.200s'", url);
}
