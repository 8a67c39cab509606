/*
 * views.c - the table of per-worker JSON documents written beside the four
 * of SPEC §4 (overview, operators, kernels, memory: json_out.c) and the
 * modules document.
 *
 * Each row names a document: the file <name>.json that `nnscope analyse`
 * writes into a worker/span directory (out_write_extra), the view
 * /api/view?view=<name> that `nnscope serve` answers (src/server/routes.c)
 * and the disk cache entry the server keeps. Adding a document is one row
 * here and its writer; nothing else needs to change.
 *
 * A writer takes the finished profile and writes one complete JSON object.
 * Writers of analyses that are not part of an_profile_compute (HTA's) need
 * their pass of the profile (an_profile_need: run once, on first use).
 */
#include "output/ms_host_out.h"
#include "output/ms_memory_json.h"
#include "output/output.h"

#include <string.h>

const struct out_view out_views[] = {
    {"datapipe", out_json_datapipe, 2, 0, NULL},
    {"cpu", out_json_cpu, 2, 0, NULL},
    {"hostinfo", out_json_hostinfo, 2, 0, NULL},
    {"steptrace", out_json_steptrace, 2, 0, NULL},
    {"temporal", out_json_temporal, 2, 0, NULL},
    {"idle", out_json_idle, 2, 0, NULL},
    {"queue", out_json_queue, 2, 0, NULL},
    {"membw", out_json_membw, 2, 0, NULL},
    {"launches", out_json_hta_launches, 2, 0, NULL},
    {"annotations", out_json_hta_annotations, 3, 0, NULL},
    {"sequences", out_json_hta_sequences, 3, 0, NULL},
    {"critical_path", out_json_critical_path, 3, 0, NULL},
    {"ms_ops", out_json_ms_ops_view, 2, 1, NULL},
    {"ms_op_detail", out_json_ms_op_detail_view, 2, 1, NULL},
    {"ms_minddata", out_json_ms_minddata_view, 2, 1, NULL},
    {"ms_flops", out_json_ms_flops_view, 2, 1, NULL},
    {"ms_aicpu", out_json_ms_aicpu_view, 2, 1, NULL},
    {"ms_dynshape", out_json_ms_dynshape_view, 2, 1, NULL},
    {"ms_gpu_ops", out_json_ms_gpu_ops_view, 2, 1, NULL},
    {"ms_cpu_ops", out_json_ms_cpu_ops_view, 2, 1, NULL},
    {"ms_memory", out_json_ms_memory_view, 2, 1, NULL},
    {"ms_host", out_json_ms_host_view, 2, 1, NULL},
    {"ms_parallel", out_json_ms_parallel_view, 2, 1, NULL},
    {"ms_marey", out_json_ms_marey_view, 0, 1, out_ms_marey_applies},
};

const size_t out_nviews = sizeof(out_views) / sizeof(out_views[0]);

const struct out_view *out_view_find(const char *name)
{
	size_t i;

	for (i = 0; i < out_nviews; i++)
		if (strcmp(out_views[i].name, name) == 0)
			return &out_views[i];
	return NULL;
}

int out_view_applies(const struct out_view *v, const struct an_profile *p)
{
	return !v->mindspore || p->ms;
}
