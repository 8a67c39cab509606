/*
 * ms_minddata_result.c - runs every MindData analysis of one device once
 * (ms_md_compute, ms_minddata.h): queues, queue summary, the pipeline's
 * bottleneck ops, CPU utilization with each series' average, and the
 * proposals, so that the document's writer only writes them.
 */
#include "analysis/ms_minddata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bottleneck(const struct ms_md_pipeline *p, struct ms_md_result *r)
{
	size_t n = 0;

	if (!p->present)
		return NNS_OK;
	if (vec_reserve(&r->bottleneck, p->ops.n ? p->ops.n : 1))
		return NNS_ENOMEM;
	ms_md_pipeline_outside_threshold(p, MS_MD_PIPE_HIGH, MS_MD_PIPE_LOW, r->bottleneck.v, &n);
	r->bottleneck.n = n;
	return NNS_OK;
}

/* The pipeline ops' metric averages and their sums by metric name. */
static int op_averages(const struct ms_md_cpu *c, struct ms_md_result *r)
{
	const struct ms_md_cpu_info *ci = &r->cpu;

	r->ntot = 2;
	snprintf(r->tot_name[0], sizeof(r->tot_name[0]), "user_utilization");
	snprintf(r->tot_name[1], sizeof(r->tot_name[1]), "sys_utilization");
	if (c->ops.n && vec_reserve(&r->op_avg, c->ops.n * MS_MD_MAX_METRICS))
		return NNS_ENOMEM;
	r->op_avg.n = c->ops.n * MS_MD_MAX_METRICS;
	for (size_t k = 0; k < c->ops.n; k++) {
		const struct ms_md_cpu_op *o = &c->ops.v[k];

		for (size_t i = 0; i < o->nmetrics; i++) {
			double avg = ms_md_cpu_avg(&o->metrics[i], ci->first, ci->end);
			size_t t = 0;

			r->op_avg.v[k * MS_MD_MAX_METRICS + i] = avg;
			if (o->op_id == -1) /* not a pipeline op */
				continue;
			while (t < r->ntot && strcmp(r->tot_name[t], o->metrics[i].name) != 0)
				t++;
			if (t == r->ntot && r->ntot < MS_MD_MAX_METRICS) {
				memcpy(r->tot_name[t], o->metrics[i].name, sizeof(r->tot_name[t]));
				r->tot[t] = 0;
				r->ntot++;
			}
			if (t < r->ntot)
				r->tot[t] += avg;
		}
	}
	return NNS_OK;
}

static int cpu(const struct ms_md *m, struct ms_md_result *r)
{
	const struct ms_md_cpu *c = &m->cpu;
	int rc;

	if (!c->present)
		return NNS_OK;
	if ((rc = ms_md_cpu_analyse(c, &m->dq, &r->cpu)))
		return rc;
	for (size_t i = 0; i < c->ndevice; i++)
		r->dev_avg[i] = ms_md_cpu_avg(&c->device[i], r->cpu.first, r->cpu.end);
	for (size_t i = 0; i < c->nprocess; i++)
		r->proc_avg[i] = ms_md_cpu_avg(&c->process[i], r->cpu.first, r->cpu.end);
	if ((rc = op_averages(c, r))) {
		ms_md_cpu_info_release(&r->cpu);
		vec_free(&r->op_avg);
	}
	return rc;
}

int ms_md_compute(const struct ms_md *m, struct ms_md_result *r)
{
	memset(r, 0, sizeof(*r));
	if (m->dq.present)
		r->dq_rc = ms_md_dq_analyse(&m->dq, &r->dq);
	if (m->gn.present)
		r->gn_rc = ms_md_gn_analyse(&m->gn, &r->gn);
	ms_md_queue_summary(&m->dq, &m->gn, &r->sum);
	r->pl_rc = bottleneck(&m->pl, r);
	r->cpu_rc = cpu(m, r);
	r->prop_rc = ms_md_propose(&m->dq, &m->gn, &m->pl, &m->cpu, &r->props);
	return NNS_OK;
}

void ms_md_result_release(struct ms_md_result *r)
{
	if (!r->dq_rc)
		ms_md_dq_info_release(&r->dq);
	if (!r->gn_rc)
		ms_md_gn_info_release(&r->gn);
	vec_free(&r->bottleneck);
	if (!r->cpu_rc)
		ms_md_cpu_info_release(&r->cpu);
	vec_free(&r->op_avg);
	if (!r->prop_rc)
		ms_md_proposals_release(&r->props);
	memset(r, 0, sizeof(*r));
}
