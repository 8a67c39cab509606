/*
 * kineto_note.c - the legacy torch.profiler trace format, and the note the
 * importer leaves in m->diag.note when a readable trace is odd.
 *
 * PyTorch builds without Kineto (and the autograd profiler's legacy path,
 * torch.autograd.profiler.profile(use_kineto=False)) write
 * export_chrome_trace as a bare JSON array whose events carry no "cat":
 *   {"name": "aten::mm", "ph": "X", "ts": 466, "dur": 9806, "tid": 1,
 *    "pid": "CPU functions", "args": {}}
 * and, with use_cuda (PyTorch 1.x before 1.8), each kernel as an "X" event
 * on pid "CUDA functions" with the device as tid, linked to its operator by
 * an "s"/"f" flow pair of cat "cpu_to_cuda" (later versions keep only the
 * "s" half). kleg_kind() reads those events as operators and kernels;
 * kleg_note() says, once the model is built, that the file is in that
 * format and what it lacks, or that a trace has events but none of a kind
 * any analysis uses.
 */
#include "kineto_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEG_CPU "CPU functions"
#define LEG_CUDA "CUDA functions"

int kleg_kind(struct kstr pid, struct kstr tid, int64_t *device)
{
	if (KJ_EQ(pid, LEG_CPU))
		return MK_CPU_OP;
	if (KJ_EQ(pid, LEG_CUDA)) {
		int64_t d = 0;
		size_t i;

		/* the tid is the CUDA device (an integer) */
		for (i = 0; i < tid.n && i < 6 && tid.p[i] >= '0' && tid.p[i] <= '9'; i++)
			d = d * 10 + (tid.p[i] - '0');
		if (i > 0 && i == tid.n)
			*device = d;
		return MK_KERNEL;
	}
	return MK_OTHER;
}

/* 1 (CPU functions), 2 (CUDA functions) or 0: the legacy pid of a thread. */
static uint8_t legacy_side(const struct model *m, const struct model_thread *t)
{
	const char *pid = model_str(m, t->pid);

	if (strcmp(pid, LEG_CPU) == 0)
		return 1;
	return strcmp(pid, LEG_CUDA) == 0 ? 2 : 0;
}

static void legacy_note(struct model *m, const char *name, int64_t ops, int64_t kernels,
			int64_t launches)
{
	char k[96];

	if (kernels || !launches)
		snprintf(k, sizeof(k), "%lld kernel(s)", (long long)kernels);
	else /* PyTorch >= 1.8 writes the launch arrows but not the kernels */
		snprintf(k, sizeof(k),
			 "no kernels (the file holds %lld launch arrow(s) but not their kernels)",
			 (long long)launches);
	snprintf(m->diag.note, sizeof(m->diag.note),
		 "%s: the legacy torch.profiler format (export_chrome_trace without Kineto: "
		 "events without \"cat\"): read %lld CPU op(s) as operators and %s; it has no "
		 "steps (the whole trace is one step), no CUDA runtime events (kernels are not "
		 "tied to the operators that launched them), no input shapes or memory events; "
		 "torch.profiler.profile with Kineto writes all of these",
		 name, (long long)ops, k);
}

/* The legacy pid side of each thread (malloc'd, the caller frees), or
 * NULL when no thread has one (or out of memory: then no note). */
static uint8_t *legacy_sides(const struct model *m)
{
	uint8_t *side;
	size_t i;

	for (i = 0; i < m->threads.n && !legacy_side(m, &m->threads.v[i]); i++)
		;
	if (i == m->threads.n || !(side = malloc(m->threads.n)))
		return NULL;
	for (i = 0; i < m->threads.n; i++)
		side[i] = legacy_side(m, &m->threads.v[i]);
	return side;
}

void kleg_note(struct model *m, const char *name)
{
	int64_t ops = 0, kernels = 0, launches = 0, other = 0;
	uint8_t *side;
	size_t i;

	if (m->diag.note[0] || !m->events.n)
		return;
	if ((side = legacy_sides(m)) != NULL) {
		for (i = 0; i < m->events.n; i++) {
			const struct model_event *e = &m->events.v[i];
			int s = e->thread < m->threads.n ? side[e->thread] : 0;

			ops += s == 1 && e->kind == MK_CPU_OP;
			kernels += s == 2 && e->kind == MK_KERNEL;
		}
		for (i = 0; i < m->flows.n; i++) {
			uint32_t t = m->flows.v[i].thread;

			launches += m->flows.v[i].ph == 's' && t < m->threads.n && side[t] == 1;
		}
		free(side);
		if (ops || kernels) {
			legacy_note(m, name, ops, kernels, launches);
			return;
		}
	}
	/* finalized: the kinds present say it without a walk */
	other = m->kinds == MODEL_KB(MK_OTHER) ? (int64_t)m->events.n : 0;
	/* every event is a plain range, none of a category counted as unknown
	 * (those are said already): nothing for the analyses to use */
	if (other == (int64_t)m->events.n && !m->diag.unknown_cats[0].count &&
	    !m->diag.unknown_cats_more)
		snprintf(m->diag.note, sizeof(m->diag.note),
			 "%s: none of the %lld complete event(s) has a \"cat\" that nnscope "
			 "analyses (cpu_op, kernel, cuda_runtime, ...): they are kept as plain "
			 "ranges on the timeline, and the tables are empty",
			 name, (long long)m->events.n);
}
