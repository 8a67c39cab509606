/*
 * kineto_cats.c - what a Kineto "cat" means, and whose thread an event is
 * on (kineto_internal.h):
 *   - kcat_kind: the model kind of a category, CUDA's and every other
 *     accelerator's spelling (libkineto ActivityType.cpp and its vendor
 *     forks), case-insensitive; MK_OTHER for the rest;
 *   - kcat_known_other: the categories Kineto writes that no analysis uses
 *     (kept on the timeline, not reported as unknown);
 *   - kcat_src_code: the model's code of an accelerator's own category;
 *   - kcat_memo: both, remembered per parser for the categories seen;
 *   - kcat_flow_kind: fwdbwd / ac2g / other flows;
 *   - kev_thread: the model thread of a (pid, tid) text pair, through the
 *     parser's small cache.
 */
#include "kineto_internal.h"

#include <string.h>

/* ---- categories ------------------------------------------------------------ */

static const struct {
	const char *s;
	uint8_t n, kind;
} cat_tab[] = {
    {"cpu_op", 6, MK_CPU_OP},
    {"operator", 8, MK_CPU_OP},
    {"kernel", 6, MK_KERNEL},
    {"cuda_runtime", 12, MK_RUNTIME},
    {"runtime", 7, MK_RUNTIME},
    {"python_function", 15, MK_PYTHON_FUNCTION},
    {"user_annotation", 15, MK_USER_ANNOTATION},
    {"gpu_user_annotation", 19, MK_GPU_ANNOTATION},
    {"python", 6, MK_PYTHON},
    {"cuda_driver", 11, MK_DRIVER},
    {"memcpy", 6, MK_MEMCPY},
    {"gpu_memcpy", 10, MK_MEMCPY},
    {"memset", 6, MK_MEMSET},
    {"gpu_memset", 10, MK_MEMSET},
    {"trace", 5, MK_TRACE},
    {"cuda_sync", 9, MK_SYNC},
    /* other accelerators (libkineto ActivityType.cpp and its vendor forks):
     * launches, device work, device copies */
    {"mtia_runtime", 12, MK_RUNTIME},
    {"mtia_ccp_events", 15, MK_KERNEL}, /* MTIA device events */
    {"glow_runtime", 12, MK_RUNTIME},
    {"xpu_runtime", 11, MK_RUNTIME},
    {"xpu_driver", 10, MK_DRIVER},
    {"hpu_op", 6, MK_KERNEL}, /* Gaudi device ops */
    {"privateuse1_runtime", 19, MK_RUNTIME},
    {"privateuse1_driver", 18, MK_DRIVER},
    {"hip_runtime", 11, MK_RUNTIME},
    {"hip_driver", 10, MK_DRIVER},
    {"mlu_runtime", 11, MK_RUNTIME},
    {"mlu_memcpy", 10, MK_MEMCPY},
    {"mlu_memset", 10, MK_MEMSET},
    {"mlu_user_annotation", 19, MK_GPU_ANNOTATION},
    {"mlu_profiler_range", 18, MK_PROFILER_RANGE},
    {"gcu_runtime", 11, MK_RUNTIME},
    {"gcu_driver", 10, MK_DRIVER},
    {"gcu_memcpy", 10, MK_MEMCPY},
    {"gcu_memset", 10, MK_MEMSET},
    {"gcu_user_annotation", 19, MK_GPU_ANNOTATION},
    {"gcu_profiler_range", 18, MK_PROFILER_RANGE},
    {"gcu_sync", 8, MK_SYNC},
    {"xpu_sync", 8, MK_SYNC},
    {"cuda_profiler_range", 19, MK_PROFILER_RANGE},
};

/* Categories Kineto writes that no analysis uses: kept as MK_OTHER ranges
 * (shown on the timeline) without being reported as unknown. */
static const char *const known_other[] = {"overhead",
					  "cpu_instant_event",
					  "external_correlation",
					  "collective_comm",
					  "mtia_insight",
					  "mtia_counters",
					  "mtia_workloadd",
					  "cuda_event",
					  "mlu_notifier",
					  "xpu_scope_profiler",
					  NULL};

/* Lower-cases s into b (size 24); 0 if too long. */
static size_t lower(struct kstr s, char *b)
{
	size_t i;

	if (s.n >= 24)
		return 0;
	for (i = 0; i < s.n; i++) {
		char c = s.p[i];
		b[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
	}
	return s.n;
}

/* The model's code of an accelerator's own category (0 for CUDA's). */
int kcat_src_code(struct kstr c)
{
	char b[24];
	size_t n = lower(c, b);

	return n ? model_src_cat_code(b, n) : 0;
}

void kcat_memo(struct kparser *ps, struct kstr c, int *kind, int *code)
{
	unsigned i;

	for (i = 0; i < ps->catm_n; i++)
		if (ps->catm[i].n == c.n && memcmp(ps->catm[i].s, c.p, c.n) == 0) {
			*kind = ps->catm[i].kind;
			*code = ps->catm[i].code;
			return;
		}
	*kind = kcat_kind(c);
	*code = kcat_src_code(c);
	if (c.n < sizeof(ps->catm[0].s) && ps->catm_n < KP_CATMEMO) {
		struct kcatm *x = &ps->catm[ps->catm_n++];
		memcpy(x->s, c.p, c.n);
		x->n = (uint8_t)c.n;
		x->kind = (uint8_t)*kind;
		x->code = (uint8_t)*code;
	}
}

int kcat_kind(struct kstr c)
{
	char b[24];
	size_t n = lower(c, b), i;

	for (i = 0; n && i < sizeof(cat_tab) / sizeof(cat_tab[0]); i++)
		if (cat_tab[i].n == n && memcmp(cat_tab[i].s, b, n) == 0)
			return cat_tab[i].kind;
	return MK_OTHER;
}

/* 1 when c is a category Kineto writes that maps to MK_OTHER on purpose. */
int kcat_known_other(struct kstr c)
{
	char b[24];
	size_t n = lower(c, b), i;

	for (i = 0; n && known_other[i]; i++)
		if (strlen(known_other[i]) == n && memcmp(known_other[i], b, n) == 0)
			return 1;
	return 0;
}

int kcat_flow_kind(struct kstr c)
{
	char b[24];
	size_t n = lower(c, b);

	if (n == 6 && !memcmp(b, "fwdbwd", 6))
		return MF_FWDBWD;
	if (n == 4 && !memcmp(b, "ac2g", 4))
		return MF_AC2G;
	return MF_OTHER;
}

/* ---- threads ----------------------------------------------------------------- */

uint32_t kev_thread(struct kparser *ps, struct kstr pid, struct kstr tid)
{
	struct kthr *t;
	uint32_t pi, ti, idx;
	unsigned i;
	int cacheable = pid.n + tid.n <= KP_TKEY;

	if (cacheable) {
		for (i = 0; i < ps->tc_n; i++) {
			t = &ps->tcache[i];
			if (t->pl == pid.n && t->tl == tid.n && memcmp(t->key, pid.p, pid.n) == 0 &&
			    memcmp(t->key + pid.n, tid.p, tid.n) == 0)
				return t->idx;
		}
	}
	pi = model_intern(ps->m, pid.p, pid.n);
	ti = model_intern(ps->m, tid.p, tid.n);
	if (pi == STRPOOL_NONE || ti == STRPOOL_NONE)
		return MODEL_NOIDX;
	idx = model_thread(ps->m, pi, ti);
	if (idx != MODEL_NOIDX && cacheable) {
		if (ps->tc_n < KP_TCACHE)
			t = &ps->tcache[ps->tc_n++];
		else
			t = &ps->tcache[ps->tc_next++ % KP_TCACHE];
		memcpy(t->key, pid.p, pid.n);
		memcpy(t->key + pid.n, tid.p, tid.n);
		t->pl = (uint8_t)pid.n;
		t->tl = (uint8_t)tid.n;
		t->idx = idx;
	}
	return idx;
}
