/*
 * profile.c - runs every per-worker analysis in dependency order and frees
 * the results (an_profile_compute / an_profile_release).
 */
#include "analysis.h"
#include "analysis/an_ms.h"

#include <stdlib.h>
#include <string.h>

int an_profile_compute(struct an_profile *p, const struct model *m, struct nns_err *err)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->m = m;
	if (!m->finalized)
		return nns_err_set(err, NNS_EINVAL, "internal: model not finalized");
	if ((rc = an_steps_compute(p, err)) || (rc = an_optree_compute(p, err)) ||
	    (rc = an_breakdown_compute(p, err)) || (rc = an_comm_compute(p, err)) ||
	    (rc = an_ops_compute(p, err)) || (rc = an_kernels_compute(p, err)) ||
	    (rc = an_gpu_compute(p, err)) || (rc = an_memory_compute(p, err)) ||
	    (rc = an_modules_compute(p, err)) || (rc = an_datapipe_compute(p, err)) ||
	    (rc = an_cpu_compute(p, err)) || (rc = an_hostinfo_compute(p, err)) ||
	    (rc = an_steptrace_compute(p, err)) || (rc = an_advice_compute(p, err)))
		return rc;
	return NNS_OK;
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
	vec_free(&p->tree.rt_links);
	vec_free(&p->tree.roots);
	free(p->tree.owner);
	vec_free(&p->ops.by_name);
	vec_free(&p->ops.by_name_shape);
	vec_free(&p->ops.by_name_stack);
	vec_free(&p->ops.by_name_shape_stack);
	vec_free(&p->kernels.by_name);
	vec_free(&p->kernels.by_properties);
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
	memset(p, 0, sizeof(*p));
}
