/*
 * breakdown.c - step-time breakdown (tb_plugin OverallParser / range_utils).
 *
 * Role intervals are merged per role over all threads and devices; then, in
 * priority order Kernel > Memcpy > Memset > Communication > Runtime >
 * DataLoader > CPU Exec, each role takes what is left of the step slots;
 * Other is the remainder. The eight costs therefore sum to the step time.
 *
 * Deliberate fixes over tb_plugin: GPU-side annotations are not CPU Exec;
 * cuda_driver calls count as Runtime; collective kernels are recognised by
 * name (ncclKernel*, ncclDevKernel*) as well as by the external id of a
 * nccl:/gloo: op, since PyTorch 2.x writes external id == correlation on
 * them (kineto#782).
 */
#include "an_steps.h"
#include "analysis.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>

#define NAME(role, name, key, title, desc) [role] = name,
#define KEY(role, name, key, title, desc) [role] = key,
const char *const an_role_names[AN_NROLES] = {AN_ROLE_TABLE(NAME)};
const char *const an_role_keys[AN_NROLES] = {AN_ROLE_TABLE(KEY)};
#undef NAME
#undef KEY

static int i64_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static int has_id(const int64_t *ids, size_t n, int64_t id)
{
	size_t k = iv_bound(ids, n, sizeof(*ids), 0, id, 0);

	return k < n && ids[k] == id;
}

static int role_of(struct an_profile *p, const struct model_event *e, const int64_t *comm_ids,
		   size_t ncomm)
{
	unsigned f;

	switch (e->kind) {
	case MK_KERNEL:
		if ((e->ext_id_enc != MODEL_ID_NONE &&
		     has_id(comm_ids, ncomm, model_ext_id(p->m, e))) ||
		    (e->flags & MODEL_EF_CLASS) == MC_COMM)
			return AN_COMM;
		return AN_KERNEL;
	case MK_MEMCPY:
		return AN_MEMCPY;
	case MK_MEMSET:
		return AN_MEMSET;
	case MK_RUNTIME:
	case MK_DRIVER:
		return AN_RUNTIME;
	case MK_CPU_OP:
	case MK_USER_ANNOTATION:
	case MK_PYTHON:
		f = an_name_flags(p, e->name);
		if (e->kind != MK_PYTHON && (f & AN_NAME_DATALOADER))
			return AN_DATALOADER;
		if (e->kind != MK_PYTHON && (f & AN_NAME_STEP))
			return -1;
		if (f & AN_NAME_COMM)
			return AN_COMM;
		return AN_CPUOP;
	default:
		return -1;
	}
}

/* The external ids of the CPU-side collectives (nccl:/gloo: ops), sorted,
 * into ids (room for every event); returns how many. */
static size_t comm_ext_ids(struct an_profile *p, int64_t *ids)
{
	const struct model *m = p->m;
	size_t n = 0;

	for (size_t i = 0; i < m->events.n && (m->kinds & AN_KB_CPU_RANGE); i++) {
		const struct model_event *e = &m->events.v[i];
		if (an_kind_is_cpu_range(e->kind) && e->ext_id_enc != MODEL_ID_NONE &&
		    (an_name_flags(p, e->name) & AN_NAME_COMM))
			ids[n++] = model_ext_id(m, e);
	}
	qsort(ids, n, sizeof(*ids), i64_cmp);
	return n;
}

/* o->role: every event's interval under its role, merged per role; and
 * the has_* flags of the overview. The events come in start order, so
 * each set is merged as it grows (iv_add_union): one range per busy
 * stretch rather than one per event, which a big trace's millions of
 * events would make tens of MB held to the end. */
static int role_sets(struct an_profile *p, const int64_t *comm_ids, size_t ncomm)
{
	const struct model *m = p->m;
	struct an_overview *o = &p->overview;

	for (size_t i = 0;
	     i < m->events.n && (m->kinds & (MODEL_KB_DEVICE | MODEL_KB_LAUNCH | AN_KB_CPU_RANGE));
	     i++) {
		const struct model_event *e = &m->events.v[i];
		int role = role_of(p, e, comm_ids, ncomm);
		if (role < 0)
			continue;
		if (iv_add_union(&o->role[role], e->ts, e->ts + e->dur))
			return NNS_ENOMEM;
		if (e->kind == MK_RUNTIME || e->kind == MK_DRIVER)
			o->has_runtime = 1;
		else if (e->kind == MK_KERNEL)
			o->has_kernel = 1;
		else if (e->kind == MK_MEMCPY || e->kind == MK_MEMSET)
			o->has_memcpy_or_memset = 1;
	}
	for (size_t r = 0; r < AN_NROLES; r++)
		iv_merge(&o->role[r]);
	o->has_communication = o->role[AN_COMM].r.n > 0;
	return 0;
}

/* taken[r]: the time of the steps that role r takes, in priority order
 * (each role what the ones before left), Other the remainder. */
static int take_slots(const struct an_overview *o, struct iv_set taken[AN_NROLES])
{
	struct iv_set slots = {0}, rest = {0}, steps = {0};
	int rc = NNS_ENOMEM;

	for (size_t i = 0; i < o->steps.n; i++)
		if (iv_add(&steps, o->steps.v[i].start, o->steps.v[i].end))
			goto out;
	iv_merge(&steps);
	if (iv_clip(&steps, INT64_MIN, INT64_MAX, &slots))
		goto out;
	for (size_t r = 0; r < AN_OTHER; r++) {
		if (iv_intersect(&slots, &o->role[r], &taken[r]) ||
		    iv_subtract(&slots, &taken[r], &rest))
			goto out;
		struct iv_set t = slots;
		slots = rest;
		rest = t;
	}
	taken[AN_OTHER] = slots;
	memset(&slots, 0, sizeof(slots));
	rc = NNS_OK;
out:
	iv_set_release(&slots);
	iv_set_release(&rest);
	iv_set_release(&steps);
	return rc;
}

/* Each step's cost per role, and the averages over the steps. */
static void step_costs(struct an_overview *o, const struct iv_set taken[AN_NROLES])
{
	size_t i, r;

	memset(o->avg, 0, sizeof(o->avg));
	o->avg_total = 0;
	for (i = 0; i < o->steps.n; i++) {
		struct an_step *s = &o->steps.v[i];
		for (r = 0; r < AN_NROLES; r++) {
			s->cost[r] = iv_total_in(&taken[r], s->start, s->end);
			o->avg[r] += (double)s->cost[r];
		}
		o->avg_total += (double)(s->end - s->start);
	}
	if (o->steps.n) {
		for (r = 0; r < AN_NROLES; r++)
			o->avg[r] /= (double)o->steps.n;
		o->avg_total /= (double)o->steps.n;
	}
}

int an_breakdown_compute(struct an_profile *p, struct nns_err *err)
{
	struct iv_set taken[AN_NROLES];
	int64_t *comm_ids = NULL;
	size_t ncomm, r;
	int rc = NNS_ENOMEM;

	memset(taken, 0, sizeof(taken));
	comm_ids = malloc((p->m->events.n + 1) * sizeof(*comm_ids));
	if (!comm_ids)
		goto out;
	ncomm = comm_ext_ids(p, comm_ids);
	if (role_sets(p, comm_ids, ncomm) || take_slots(&p->overview, taken))
		goto out;
	step_costs(&p->overview, taken);
	/* no pass reads these sets again (one range per launch, a big
	 * trace's MBs): only the breakdown's own slots needed them */
	iv_set_release(&p->overview.role[AN_MEMCPY]);
	iv_set_release(&p->overview.role[AN_MEMSET]);
	iv_set_release(&p->overview.role[AN_RUNTIME]);
	iv_set_release(&p->overview.role[AN_OTHER]);
	rc = NNS_OK;
out:
	for (r = 0; r < AN_NROLES; r++)
		iv_set_release(&taken[r]);
	free(comm_ids);
	if (rc)
		nns_err_set(err, rc, "out of memory in the step breakdown");
	return rc;
}
