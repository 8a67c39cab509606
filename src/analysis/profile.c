/*
 * profile.c - the pass table of a worker's profile and its cache: which
 * analyses exist, what each needs, and an_profile_need, which runs a pass
 * (its needs first) once and remembers how it went; an_profile_need_mask,
 * which runs several on a few threads, each as soon as its needs ended.
 * an_profile_compute runs the base passes; an_profile_release frees what
 * every pass made.
 *
 * The table is the order of truth: a pass only needs passes above it, so
 * running them top to bottom is always valid and cycles cannot be written
 * (tests/unit/test_passes.c checks it).
 */
#include "analysis/an_hta.h"
#include "analysis/an_ms.h"
#include "analysis/names.h"

#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

_Static_assert(AN_PASS__N <= 32, "the pass masks are 32 bits");

/* ---- HTA's passes: their analyses with HTA's defaults ---------------------- */

static int run_temporal(struct an_profile *p, struct nns_err *err)
{
	int rc = hta_temporal_compute(p->m, &p->hta->temporal, err);

	if (rc)
		hta_temporal_release(&p->hta->temporal);
	return rc;
}

static int run_idle(struct an_profile *p, struct nns_err *err)
{
	int rc = hta_idle_compute(p->m, -1, &p->hta->idle, err);

	if (rc)
		hta_idle_release(&p->hta->idle);
	return rc;
}

static int run_queue(struct an_profile *p, struct nns_err *err)
{
	int rc = hta_queue_compute(p->m, 0, &p->hta->queue, err);

	if (rc)
		hta_queue_release(&p->hta->queue);
	return rc;
}

static int run_membw(struct an_profile *p, struct nns_err *err)
{
	int rc = hta_membw_compute(p->m, &p->hta->membw, err);

	if (rc)
		hta_membw_release(&p->hta->membw);
	return rc;
}

static int run_launches(struct an_profile *p, struct nns_err *err)
{
	return hta_launches_compute(p, NULL, &p->hta->launches, err);
}

static int run_annotations(struct an_profile *p, struct nns_err *err)
{
	return hta_annotations_compute(p, &p->hta->annotations, err);
}

static int run_sequences(struct an_profile *p, struct nns_err *err)
{
	return hta_sequences_default(p, 0, &p->hta->sequences, err);
}

static int run_critpath(struct an_profile *p, struct nns_err *err)
{
	struct hcp_opts o = {NULL};

	return hcp_compute(&p->hta->critpath, p, &o, err);
}

static int run_critpath_step(struct an_profile *p, struct nns_err *err)
{
	struct hcp_opts o = {p->opts.critpath_step};

	return hcp_compute(&p->hta->critpath_step, p, &o, err);
}

/* ---- the table -------------------------------------------------------------- */

#define N(x) (1u << AN_PASS_##x)

const struct an_pass_def an_passes[AN_PASS__N] = {
    [AN_PASS_STEPS] = {"steps", an_steps_compute, 0},
    [AN_PASS_OPTREE] = {"optree", an_optree_compute, 0},
    [AN_PASS_TENSORCORE] = {"tensorcore", an_tensorcore_compute, N(OPTREE)},
    [AN_PASS_BREAKDOWN] = {"breakdown", an_breakdown_compute, N(STEPS)},
    [AN_PASS_COMM] = {"comm", an_comm_compute, N(STEPS) | N(OPTREE)},
    [AN_PASS_OPS] = {"ops", an_ops_compute, N(OPTREE)},
    [AN_PASS_KERNELS] = {"kernels", an_kernels_compute, N(OPTREE) | N(TENSORCORE)},
    [AN_PASS_GPU] = {"gpu", an_gpu_compute, N(STEPS) | N(OPTREE) | N(TENSORCORE)},
    [AN_PASS_MEMORY] = {"memory", an_memory_compute, N(OPTREE)},
    [AN_PASS_MODULES] = {"modules", an_modules_compute, N(OPTREE)},
    [AN_PASS_DATAPIPE] = {"datapipe", an_datapipe_compute, N(STEPS) | N(BREAKDOWN)},
    [AN_PASS_CPU] = {"cpu", an_cpu_compute, N(STEPS)},
    [AN_PASS_HOSTINFO] = {"hostinfo", an_hostinfo_compute, 0},
    [AN_PASS_STEPTRACE] = {"steptrace", an_steptrace_compute, N(STEPS) | N(OPTREE)},
    [AN_PASS_ADVICE] = {"advice", an_advice_compute,
			N(STEPS) | N(OPTREE) | N(TENSORCORE) | N(BREAKDOWN) | N(COMM) | N(KERNELS) |
			    N(GPU) | N(MEMORY) | N(DATAPIPE) | N(CPU)},
    [AN_PASS_TEMPORAL] = {"temporal", run_temporal, 0},
    [AN_PASS_IDLE] = {"idle", run_idle, 0},
    [AN_PASS_QUEUE] = {"queue", run_queue, 0},
    [AN_PASS_MEMBW] = {"membw", run_membw, 0},
    [AN_PASS_LAUNCHES] = {"launches", run_launches, N(OPTREE)},
    [AN_PASS_ANNOTATIONS] = {"annotations", run_annotations, 0},
    [AN_PASS_SEQUENCES] = {"sequences", run_sequences, N(OPTREE)},
    [AN_PASS_CRITPATH] = {"critpath", run_critpath, N(STEPS)},
    [AN_PASS_CRITPATH_STEP] = {"critpath_step", run_critpath_step, N(STEPS)},
};

#undef N

/* ---- the cache -------------------------------------------------------------- */

void an_profile_init(struct an_profile *p, const struct model *m)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	pthread_mutex_init(&p->cache.lock, NULL);
	pthread_cond_init(&p->cache.cond, NULL);
}

/* Hands the pages of what a pass freed back to the system. A pass's
 * temporaries (per-event arrays of tens of MB on a big trace) are freed
 * inside glibc's heaps once its mmap threshold has grown past them, and
 * stay resident there, between the results that later passes keep, up
 * to the end of the run: the peak RSS then counts every pass's scratch
 * space. malloc_trim returns the whole free pages of every arena; it
 * costs a walk over the free chunks, once per pass. */
static void give_back_free_pages(void)
{
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
}

/* Runs pass, whose needs have ended, and records how it went. The lock is
 * held on entry and on return, and released while the pass runs so that
 * other passes run beside it. A pass one of whose needs failed fails the
 * same way without running. */
static void run_pass(struct an_profile *p, enum an_pass pass)
{
	struct an_pass_cache *c = &p->cache;
	const struct an_pass_def *d = &an_passes[pass];
	struct nns_err e;
	int k, rc = NNS_OK;

	nns_err_clear(&e);
	for (k = 0; k < (int)pass; k++)
		if ((d->needs & (1u << k)) && c->rc[k]) {
			rc = nns_err_set(&e, c->rc[k], "%s", c->msg[k] ? c->msg[k] : "");
			break;
		}
	if (rc == NNS_OK && !c->names_ready) {
		if (an_names_prepare(p))
			rc = nns_err_set(&e, NNS_ENOMEM, "out of memory");
		else
			c->names_ready = 1;
	}
	if (rc == NNS_OK && pass >= AN_PASS_NBASE && !p->hta &&
	    !(p->hta = calloc(1, sizeof(*p->hta))))
		rc = nns_err_set(&e, NNS_ENOMEM, "out of memory");
	if (rc == NNS_OK) {
		c->running |= 1u << pass;
		pthread_mutex_unlock(&c->lock);
		rc = d->run(p, &e);
		give_back_free_pages();
		pthread_mutex_lock(&c->lock);
		c->running &= ~(1u << pass);
		c->runs[pass]++;
	}
	c->done |= 1u << pass;
	c->rc[pass] = rc;
	if (rc)
		c->msg[pass] = strdup(e.msg);
	pthread_cond_broadcast(&c->cond);
}

/* Runs pass (after its needs) unless it ran, waiting for it when another
 * thread runs it; the lock is held. */
static int need_locked(struct an_profile *p, enum an_pass pass)
{
	struct an_pass_cache *c = &p->cache;
	const struct an_pass_def *d = &an_passes[pass];
	int k;

	if (c->done & (1u << pass))
		return c->rc[pass];
	for (k = 0; k < (int)pass; k++)
		if ((d->needs & (1u << k)) && need_locked(p, (enum an_pass)k))
			break; /* run_pass fails it the same way */
	while (!(c->done & (1u << pass)) && (c->running & (1u << pass)))
		pthread_cond_wait(&c->cond, &c->lock);
	if (!(c->done & (1u << pass)))
		run_pass(p, pass);
	return c->rc[pass];
}

int an_profile_need(const struct an_profile *cp, enum an_pass pass, struct nns_err *err)
{
	/* the one place a const profile is filled: see analysis.h */
	struct an_profile *p = (struct an_profile *)cp;
	int rc;

	if ((unsigned)pass >= AN_PASS__N || !p->m)
		return nns_err_set(err, NNS_EINVAL, "internal: no pass %d on this profile",
				   (int)pass);
	pthread_mutex_lock(&p->cache.lock);
	rc = need_locked(p, pass);
	if (rc)
		nns_err_set(err, rc, "%s", p->cache.msg[pass] ? p->cache.msg[pass] : "");
	pthread_mutex_unlock(&p->cache.lock);
	return rc;
}

const struct an_hta *an_profile_hta(const struct an_profile *p, enum an_pass pass,
				    struct nns_err *err)
{
	return an_profile_need(p, pass, err) ? NULL : p->hta;
}

/* ---- passes side by side ---------------------------------------------------- */

struct pass_sched {
	struct an_profile *p;
	uint32_t want; /* the passes to run, closed under needs */
};

/* Takes the first pass of want whose needs have all ended and that nobody
 * runs, runs it, and again, until every pass of want has ended. */
static void *sched_main(void *arg)
{
	struct pass_sched *s = arg;
	struct an_pass_cache *c = &s->p->cache;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		uint32_t left = s->want & ~c->done;
		int k, pick = -1;

		if (!left)
			break;
		for (k = 0; k < AN_PASS__N && pick < 0; k++)
			if ((left & (1u << k)) && !(c->running & (1u << k)) &&
			    !(an_passes[k].needs & ~c->done))
				pick = k;
		if (pick < 0)
			pthread_cond_wait(&c->cond, &c->lock);
		else
			run_pass(s->p, (enum an_pass)pick);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int an_profile_need_mask(const struct an_profile *cp, uint32_t mask, int threads,
			 struct nns_err *err)
{
	struct an_profile *p = (struct an_profile *)cp; /* see an_profile_need */
	struct pass_sched s = {p, mask & (AN_PASS_BIT(AN_PASS__N) - 1u)};
	pthread_t th[AN_THREADS_MAX - 1];
	int k, n = 0, rc = NNS_OK;

	if (!p->m)
		return nns_err_set(err, NNS_EINVAL, "internal: no model in this profile");
	for (k = AN_PASS__N - 1; k >= 0; k--) /* needs come before: one pass down closes it */
		if (s.want & (1u << k))
			s.want |= an_passes[k].needs;
	if (threads > AN_THREADS_MAX)
		threads = AN_THREADS_MAX;
	/* a profile that has them all (every request of the server asks):
	 * no thread is started to find nothing to do */
	pthread_mutex_lock(&p->cache.lock);
	if (!(s.want & ~p->cache.done))
		threads = 1;
	pthread_mutex_unlock(&p->cache.lock);
	for (; n < threads - 1; n++)
		if (pthread_create(&th[n], NULL, sched_main, &s))
			break; /* fewer threads: the passes still all run */
	sched_main(&s);
	for (k = 0; k < n; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_lock(&p->cache.lock);
	for (k = 0; k < AN_PASS__N && !rc; k++)
		if ((mask & (1u << k)) && (rc = p->cache.rc[k]))
			nns_err_set(err, rc, "%s", p->cache.msg[k] ? p->cache.msg[k] : "");
	pthread_mutex_unlock(&p->cache.lock);
	return rc;
}

int an_profile_run_mask(struct an_profile *p, uint32_t mask, int threads, struct nns_err *err)
{
	int k;

	if (!p->m || !p->m->finalized)
		return nns_err_set(err, NNS_EINVAL, "internal: model not finalized");
	/* the other passes' failures stay in the cache: their writers say
	 * them, as when each ran on its writer's first need */
	(void)an_profile_need_mask(p, mask | AN_PASSES_BASE, threads, err);
	nns_err_clear(err);
	for (k = 0; k < AN_PASS_NBASE; k++)
		if (p->cache.rc[k])
			return nns_err_set(err, p->cache.rc[k], "%s",
					   p->cache.msg[k] ? p->cache.msg[k] : "");
	return NNS_OK;
}

int an_profile_compute_mask(struct an_profile *p, const struct model *m, uint32_t mask, int threads,
			    struct nns_err *err)
{
	an_profile_init(p, m);
	return an_profile_run_mask(p, mask, threads, err);
}

int an_profile_run_base(struct an_profile *p, struct nns_err *err)
{
	return an_profile_run_mask(p, 0, 1, err);
}

int an_profile_compute(struct an_profile *p, const struct model *m, struct nns_err *err)
{
	an_profile_init(p, m);
	return an_profile_run_base(p, err);
}

static void hta_free(struct an_hta *h)
{
	if (!h)
		return;
	hta_temporal_release(&h->temporal);
	hta_idle_release(&h->idle);
	hta_queue_release(&h->queue);
	hta_membw_release(&h->membw);
	hta_launches_release(&h->launches);
	hta_annotations_release(&h->annotations);
	hta_sequences_release(&h->sequences);
	hcp_release(&h->critpath);
	hcp_release(&h->critpath_step);
	free(h);
}

void an_profile_release(struct an_profile *p)
{
	size_t i;
	int r;

	an_ms_detach(p);
	vec_free(&p->overview.steps);
	for (r = 0; r < AN_NROLES; r++)
		iv_set_release(&p->overview.role[r]);
	for (i = 0; i < p->gpus.n; i++) {
		vec_free(&p->gpus.v[i].util_buckets);
		vec_free(&p->gpus.v[i].sm_ranges);
		vec_free(&p->gpus.v[i].sm_buckets);
	}
	vec_free(&p->gpus);
	vec_free(&p->tree.nodes);
	vec_free(&p->tree.root_threads);
	vec_free(&p->tree.roots);
	free(p->tree.owner);
	free(p->tree.tc);
	vec_free(&p->ops.by_name);
	vec_free(&p->ops.by_name_shape);
	vec_free(&p->ops.by_name_stack);
	vec_free(&p->ops.by_name_shape_stack);
	vec_free(&p->kernels.by_name);
	vec_free(&p->kernels.by_properties);
	vec_free(&p->tc.devices);
	for (i = 0; i < p->memory.devices.n; i++) {
		vec_free(&p->memory.devices.v[i].ops);
		vec_free(&p->memory.devices.v[i].curve);
		vec_free(&p->memory.devices.v[i].events);
	}
	vec_free(&p->memory.devices);
	vec_free(&p->modules.rows);
	for (i = 0; i < p->advice.items.n; i++)
		free(p->advice.items.v[i].text);
	vec_free(&p->advice.items);
	vec_free(&p->comm_nodes);
	vec_free(&p->comm_ranges);
	free(p->tc_cache);
	free(p->name_flags);
	an_datapipe_release(&p->datapipe);
	an_cpu_release(&p->cpu);
	an_hostinfo_release(&p->hostinfo);
	an_steptrace_release(&p->steptrace);
	hta_free(p->hta);
	for (r = 0; r < AN_PASS__N; r++)
		free(p->cache.msg[r]);
	pthread_mutex_destroy(&p->cache.lock);
	pthread_cond_destroy(&p->cache.cond);
	memset(p, 0, sizeof(*p));
}
