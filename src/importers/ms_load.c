/*
 * ms_load.c - a MindSpore device of a profiler directory as a model
 * (ms_load.h).
 */
#include "importers/ms_load.h"
#include "common/fs.h"
#include "importers/ms_raw.h"
#include "importers/ms_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ms_pattern {
	const char *pre, *post;
	int prio;
};

/* MindSpore's per-device files (reference mindinsight.md, "Files"). */
static const struct ms_pattern PATTERNS[] = {
    {"ascend_timeline_display_", ".json", 0},
    {"gpu_timeline_display_", ".json", 0},
    {"timeline_display_", ".json", 0},
    {"step_trace_raw_", "_detail_time.csv", 1},
    {"aicore_intermediate_", "_type.csv", 2},
    {"aicore_intermediate_", "_detail.csv", 2},
    {"aicpu_intermediate_", ".csv", 2},
    {"output_data_preprocess_aicpu_", ".txt", 2},
    {"flops_", ".txt", 2},
    {"flops_summary_", ".json", 2},
    {"minddata_pipeline_raw_", ".csv", 2},
    {"minddata_cpu_utilization_", ".json", 2},
    {"device_queue_profiling_", ".txt", 2},
    {"dynamic_shape_info_", ".json", 2},
    {"gpu_op_detail_info_", ".csv", 2},
    {"gpu_op_type_info_", ".csv", 2},
    {"gpu_activity_data_", ".csv", 2},
    {"cpu_op_detail_info_", ".csv", 2},
    {"cpu_op_type_info_", ".csv", 2},
    {"output_op_compute_time_", ".txt", 2},
    {"memory_usage_", ".pb", 2},
    /* MindData's raw pipeline profile: with it a raw job such as JOB2 whose
     * framework files sit in ../container/<dev>/data is a run (ms_raw.c) */
    {"pipeline_profiling_", ".json", 2},
};

#define NPATTERNS (sizeof(PATTERNS) / sizeof(PATTERNS[0]))

/* The timelines, best first. */
static const char *const TIMELINES[] = {"ascend_timeline_display_", "gpu_timeline_display_",
					"timeline_display_"};

int ms_match_file(const char *base, int *dev, int *prio)
{
	size_t n = strlen(base);

	if (ms_par_match_file(base, dev, prio))
		return 1; /* parallel strategy, stage timeline (ms_parallel.h) */
	for (size_t i = 0; i < NPATTERNS; i++) {
		const struct ms_pattern *p = &PATTERNS[i];
		size_t a = strlen(p->pre), b = strlen(p->post), k;
		long v = 0;

		if (n <= a + b || strncmp(base, p->pre, a) != 0 ||
		    strcmp(base + n - b, p->post) != 0)
			continue;
		for (k = a; k < n - b; k++) {
			if (base[k] < '0' || base[k] > '9' || v > 99999)
				break;
			v = v * 10 + (base[k] - '0');
		}
		if (k != n - b)
			continue; /* "flops_summary_0.json" is not "flops_<dev>.txt" etc. */
		*dev = (int)v;
		*prio = p->prio;
		return 1;
	}
	if (ms_raw_match(base, dev)) { /* a raw job's file (ms_raw.h): the last resort */
		*prio = 3;
		return 1;
	}
	return 0;
}

/* MindSpore timeline pids (mindinsight.md, "Timeline"). */
enum { MS_PID_AICPU = 9000, MS_PID_COMM = 10000, MS_PID_HOST = 11000 };

static int parse_int(const char *s, long *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	*v = strtol(s, &end, 10);
	return *end ? -1 : 0;
}

/* Events without a category get a kind from their pid and tid. */
static int classify(struct model *m, int dev)
{
	int classified = 0;

	for (size_t i = 0; i < m->events.n; i++) {
		struct model_event *e = &m->events.v[i];
		const struct model_thread *t = &m->threads.v[e->thread];
		const char *tid = model_str(m, t->tid);
		struct model_dev_args a;
		long pid, stream;
		int64_t idx;

		if (e->kind != MK_OTHER || parse_int(model_str(m, t->pid), &pid))
			continue;
		if (pid == MS_PID_HOST || (tid && strcmp(tid, "Ops") == 0)) {
			e->kind = MK_CPU_OP;
			classified = 1;
			continue;
		}
		if (pid > MS_PID_COMM && pid != 13000)
			continue; /* overlap analysis and other derived rows */
		model_dev_args_init(&a);
		if (parse_int(tid, &stream) == 0)
			a.stream = stream;
		if ((idx = model_add_dev_args(m, &a)) < 0)
			return NNS_ENOMEM;
		e->kind = MK_KERNEL;
		e->extra = (uint32_t)idx;
		e->device = (int16_t)dev; /* one file, one device (its AI Core pid
					   * need not be the device id) */
		classified = 1;
	}
	/* the importer's "no event has a cat" note no longer holds */
	if (classified && strstr(m->diag.note, "has a \"cat\""))
		m->diag.note[0] = '\0';
	return NNS_OK;
}

/* A GPU-mode device: a GPU timeline or GPU op tables; else Ascend. */
static int ms_is_gpu(const struct ms_src *s, const char *tl, int have)
{
	const char *b = strrchr(tl, '/');

	if (have)
		return strncmp(b ? b + 1 : tl, "gpu_", 4) == 0;
	return ms_src_has(s, "gpu_op_detail_info_", ".csv") ||
	       ms_src_has(s, "gpu_op_type_info_", ".csv") ||
	       ms_src_has(s, "gpu_activity_data_", ".csv");
}

static int file_exists(const struct fs_root *root, const char *path)
{
	struct stat st;

	return fs_stat_beneath(root, path, &st) == 0 && S_ISREG(st.st_mode);
}

int ms_load_device(struct model *m, const char *path, const struct kineto_opts *ko,
		   struct nns_err *err)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], tl[4200], num[16];
	struct ms_src s;
	struct ms_raw raw;
	size_t nraw = 0;
	int dev, prio, rc = NNS_OK, have = 0, have_raw = 0;

	if (!ms_match_file(slash ? slash + 1 : path, &dev, &prio))
		return nns_err_set(err, NNS_EINVAL, "%s: not a MindSpore profiler file", path);
	if (slash && (size_t)(slash - path) >= sizeof(dir))
		return nns_err_set(err, NNS_EINVAL, "%s: path too long", path);
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	s.dir = dir;
	s.dev = dev;
	s.root = ko ? ko->root : NULL;
	s.raw = NULL;
	for (size_t i = 0; i < sizeof(TIMELINES) / sizeof(TIMELINES[0]) && !have; i++)
		have = ms_src_path(&s, TIMELINES[i], ".json", tl, sizeof(tl)) == 0 &&
		       file_exists(s.root, tl);
	if (model_init(m))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	if (have) {
		rc = kineto_load_file(tl, m, ko, err);
		if (rc && rc != NNS_ETRUNC) {
			model_release(m);
			return rc;
		}
		/* the kinds change and the steps are added: index again */
		model_reopen(m);
		if (classify(m, dev)) {
			model_release(m);
			return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", tl);
		}
	}
	if (!have) { /* a raw job's files (ms_raw.h): its AI Core ops, its steps */
		struct nns_err e2;
		int rc2 = ms_raw_load(&raw, &s, &e2);

		if (rc2 == NNS_OK) {
			have_raw = 1;
			s.raw = &raw;
			rc2 = ms_raw_add_ops(m, &raw, dev, &nraw, &e2);
			if (!rc2 && ms_raw_warn_model(m, &raw))
				rc2 = nns_err_set(&e2, NNS_ENOMEM, "%s: out of memory", path);
		}
		if (rc2 && rc2 != NNS_ENOTFOUND) {
			if (have_raw)
				ms_raw_release(&raw);
			model_release(m);
			*err = e2;
			return rc2;
		}
	}
	{
		struct nns_err e2;
		int rc2;

		nns_err_clear(&e2);
		if ((rc2 = ms_add_steps(m, &s, have || nraw, &e2)) ||
		    (rc2 = model_finalize(m, &e2))) {
			if (have_raw)
				ms_raw_release(&raw);
			model_release(m);
			*err = e2;
			return rc2;
		}
	}
	snprintf(num, sizeof(num), "%d", dev);
	if (model_add_meta(m, "mindspore_dir", dir) || model_add_meta(m, "mindspore_device", num) ||
	    model_add_meta(m, "device_kind", ms_is_gpu(&s, tl, have) ? "GPU" : "NPU")) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		model_release(m);
	}
	if (have_raw)
		ms_raw_release(&raw);
	return rc;
}

int ms_model_src(const struct model *m, struct ms_src *s)
{
	const char *dir = model_meta_get(m, "mindspore_dir");
	const char *dev = model_meta_get(m, "mindspore_device");

	if (!dir || !dev)
		return 0;
	s->dir = dir;
	s->dev = atoi(dev);
	s->root = m->root;
	s->raw = NULL;
	return 1;
}
