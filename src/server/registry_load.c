/*
 * registry_load.c - an entry's load, on one of the registry's workers
 * (registry_int.h: reg_load_entry): the trace read (or its snapshot
 * mapped), the passes the trace index reads and the index (published at
 * once, for the Trace view), then the base passes (published too, for the
 * views: REG_NEED_VIEW), the other documents' passes, the documents
 * written to the disk cache (cache.c), and the snapshot written afterwards
 * (reg_save_snapshot). reg_profile runs what a view
 * needs of an entry read from its snapshot.
 */
#include "server/registry.h"
#include "server/registry_int.h"
#include "analysis/an_ms.h"
#include "common/cpus.h"
#include "importers/load.h"
#include "importers/ms_load.h"
#include "importers/ms_timeline.h"
#include "output/output.h"
#include "server/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace analysed before, from its snapshot (cache.h): the model and
 * index mapped, the profile empty (its documents are in the cache; a
 * request for anything else runs the passes it needs, reg_profile). NNS_OK,
 * or the reason it was not used, said unless there was none. */
static int load_snapshot(struct registry *r, struct reg_entry *e, struct model *m,
			 struct an_profile *p, struct trace_index **ixo)
{
	struct cache_key k = reg_key_of(e);
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	rc = cache_snap_read(&e->cache_dir, &k, m, ixo, &err);
	if (rc == NNS_OK) {
		an_profile_init(p, m);
		m->root = &r->root;
		atomic_store(&e->done_bytes, e->size);
		pthread_mutex_lock(&r->mu);
		e->from_snapshot = 1;
		e->nevents = (int64_t)m->events.n;
		pthread_mutex_unlock(&r->mu);
	} else if (rc != NNS_ENOTFOUND && !r->quiet) {
		fprintf(stderr, "nnscope serve: %s: %s; reading the trace again\n", e->path,
			err.msg);
	}
	return rc;
}

void reg_save_snapshot(struct registry *r, struct reg_entry *e)
{
	struct cache_key k = reg_key_of(e);
	struct nns_err err;

	if (e->variant || e->from_snapshot || !e->ix || e->p->ms)
		return;
	nns_err_clear(&err);
	if (cache_snap_write(&e->cache_dir, &k, e->m, e->ix, &r->halt, &err) != NNS_OK &&
	    !r->quiet && err.code != NNS_ENOTFOUND && !atomic_load(&r->halt))
		fprintf(stderr, "nnscope serve: %s: no snapshot written: %s\n", e->path, err.msg);
}

/* A trace whose Trace view can answer before its documents are ready (not a
 * variant, not a MindSpore profile, whose attach may yet fail the load):
 * the passes the index reads (steps, GPU utilization) first, then the
 * index, published (trace_early: the trace endpoints take it while the
 * loader goes on with the other passes and the cache; the load can no
 * longer fail nor be cancelled). NNS_OK with *ixo NULL when it is not such
 * a trace, else the index's status. */
static int publish_trace(struct registry *r, struct reg_entry *e, struct model *m,
			 struct an_profile *p, int threads, struct trace_index **ixo,
			 struct nns_err *err)
{
	struct ms_src src;
	int rc;

	*ixo = NULL;
	if (e->variant || ms_model_src(m, &src))
		return NNS_OK;
	if ((rc = an_profile_need_mask(p, AN_PASS_BIT(AN_PASS_STEPS) | AN_PASS_BIT(AN_PASS_GPU),
				       threads, err)) != NNS_OK)
		return rc;
	if (atomic_load(&e->cancel))
		return nns_err_set(err, NNS_EINVAL, "%s: loading cancelled", e->path);
	pthread_mutex_lock(&r->mu);
	e->phase = PH_INDEXING;
	pthread_mutex_unlock(&r->mu);
	if ((rc = trace_index_build(ixo, m, p, err)) != NNS_OK)
		return rc;
	pthread_mutex_lock(&r->mu);
	e->m = m;
	e->p = p;
	e->ix = *ixo;
	e->trace_early = 1;
	e->phase = PH_ANALYSING;
	pthread_mutex_unlock(&r->mu);
	reg_settle_notify(r); /* the trace requests held for it (hold.h) */
	return NNS_OK;
}

int reg_profile(struct reg_entry *e, struct nns_err *err)
{
	return an_profile_need_mask(e->p, AN_PASSES_DOCS, cpus_threads(0, AN_THREADS_MAX), err);
}

int reg_profile_base(struct reg_entry *e, struct nns_err *err)
{
	return an_profile_need_mask(e->p, AN_PASSES_BASE, 1, err);
}

int reg_load_entry(struct registry *r, struct reg_entry *e, struct model **mo,
		   struct an_profile **po, struct trace_index **ixo, struct nns_err *err)
{
	struct kineto_opts ko = {.done_bytes = &e->done_bytes,
				 .cancel = &e->cancel,
				 .root = &r->root,
				 .max_input = r->limits.max_input,
				 .max_ratio = r->limits.max_ratio,
				 .max_memory = r->limits.max_memory};
	struct model *m = calloc(1, sizeof(*m));
	struct an_profile *p = calloc(1, sizeof(*p));
	struct run hrun;
	int rc;

	if (!m || !p) {
		free(m);
		free(p);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", e->path);
	}
	atomic_store(&e->done_bytes, 0);
	if (!e->variant && !r->no_snapshots && (rc = load_snapshot(r, e, m, p, ixo)) == NNS_OK) {
		*mo = m;
		*po = p;
		return NNS_OK;
	}
	rc = e->variant && !e->snapshot ? mstl_load_rank_opts(m, e->path, e->variant, &ko, err)
					: load_trace(m, e->path, &ko, err);
	if (rc == NNS_OK || rc == NNS_ETRUNC) {
		if (atomic_load(&e->cancel)) {
			/* cancelled: what was read may be partial (the parallel
			 * parser reports a cut chunk as truncation); never cache it */
			model_release(m);
			rc = nns_err_set(err, NNS_EINVAL, "%s: loading cancelled", e->path);
		}
	}
	if (rc && rc != NNS_ETRUNC) {
		free(m);
		free(p);
		return rc;
	}
	memset(&hrun, 0, sizeof(hrun));
	hrun.host_info.v = e->host_info.v;
	hrun.host_info.n = e->host_info.n;
	hrun.workers.n = (size_t)e->run_workers;
	load_host_info(m, &hrun, NULL, NULL);

	pthread_mutex_lock(&r->mu);
	e->phase = PH_ANALYSING;
	e->nevents = (int64_t)m->events.n;
	pthread_mutex_unlock(&r->mu);
	nns_err_clear(err);
	an_profile_init(p, m);
	/* the passes the trace index reads and the index first, on every CPU,
	 * so that a page waiting on the Trace view draws it as soon as it can
	 * (on a machine it shares with the browser, the documents' passes
	 * beside them would delay it); then every document's passes, which are
	 * cached below */
	{
		int threads = cpus_threads(0, AN_THREADS_MAX);

		if (publish_trace(r, e, m, p, threads, ixo, err) != NNS_OK)
			goto fail;
		/* the base passes, then the views' writers have what they read:
		 * they answer while the HTA passes run and the cache is written
		 * (the DOCS run gives the first base pass's failure again) */
		if (an_profile_run_mask(p, AN_PASSES_BASE, threads, err) == NNS_OK && *ixo) {
			pthread_mutex_lock(&r->mu);
			e->views_early = 1;
			pthread_mutex_unlock(&r->mu);
			reg_settle_notify(r);
		}
		rc = an_profile_run_mask(p, AN_PASSES_DOCS, threads, err);
	}
	if (rc != NNS_OK || (rc = an_ms_attach(p, err)) != NNS_OK) {
		if (!*ixo)
			goto fail;
		/* published: the failure stays in the profile, for the views
		 * that need the pass to answer (reg_profile) */
		nns_err_clear(err);
		rc = NNS_OK;
	}
	if (atomic_load(&e->cancel) && !*ixo) /* between the phases: nothing is cached */
		goto cancelled;

	pthread_mutex_lock(&r->mu);
	e->phase = PH_CACHING;
	pthread_mutex_unlock(&r->mu);
	{
		struct out_source src = {e->worker, e->span[0] ? e->span : NULL, e->path, e->run};
		struct cache_key k = reg_key_of(e);

		if (!e->variant && !cache_valid(&e->cache_dir, &k))
			cache_write(&e->cache_dir, &k, &src, p);
	}

	if (!*ixo) {
		pthread_mutex_lock(&r->mu);
		e->phase = PH_INDEXING;
		pthread_mutex_unlock(&r->mu);
		if (atomic_load(&e->cancel))
			goto cancelled;
		if ((rc = trace_index_build(ixo, m, p, err)) != NNS_OK)
			goto fail;
	}
	*mo = m;
	*po = p;
	return NNS_OK;
cancelled:
	rc = nns_err_set(err, NNS_EINVAL, "%s: loading cancelled", e->path);
fail:
	an_profile_release(p);
	free(p);
	model_release(m);
	free(m);
	return rc;
}
