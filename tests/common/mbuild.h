/*
 * mbuild.h - building a `struct model` by hand, event by event, in unit
 * tests of the analyses (test_modules.c, test_distributed.c,
 * test_memory.c): interned names, threads, events (kernels with empty
 * device args), module calls, communication ops with input shapes,
 * fwdbwd flows, memory records, and running a chosen list of analysis
 * passes. Every helper fails the current cmocka test when the model
 * refuses the record.
 *
 * Ownership: the model is the caller's (model_init / model_release); the
 * helpers only add to it. mb_compute fills caller storage *p, released
 * with an_profile_release.
 */
#ifndef NNS_TESTS_MBUILD_H
#define NNS_TESTS_MBUILD_H

#include "analysis/analysis.h"

#include <stdint.h>

/* Interns s (a NUL-terminated string). */
uint32_t mb_str(struct model *m, const char *s);
/* The thread track (pid, tid), both given as text. */
uint32_t mb_thr(struct model *m, const char *pid, const char *tid);

/* An event of kind on thread th; ext and corr may be MODEL_NONE. A kernel
 * (MK_KERNEL) gets empty device args on device 0. */
void mb_ev(struct model *m, uint32_t th, int kind, const char *name, int64_t ts, int64_t dur,
	   int64_t ext, int64_t corr);

/* A Python module call (MK_PYTHON_FUNCTION) with module id id. */
void mb_module(struct model *m, uint32_t th, const char *name, int64_t id, int64_t ts, int64_t dur);
/* The same with Python ids, as the Kineto importer records them. */
void mb_module_py(struct model *m, uint32_t th, const char *name, int64_t id, int64_t py_id,
		  int64_t py_parent, int64_t ts, int64_t dur);

/* An operator of kind with its input dims and types (e.g. a comm op). */
void mb_comm_op(struct model *m, uint32_t th, int kind, const char *name, int64_t ts, int64_t dur,
		int64_t ext, const char *dims, const char *types);

/* One end (ph 's' or 'f') of a forward->backward flow. */
void mb_fwdbwd_flow(struct model *m, uint32_t th, char ph, int64_t id, int64_t ts);

/* A memory record with an address: device type and id, bytes > 0 for an
 * allocation, < 0 for a free. */
void mb_mem(struct model *m, uint32_t th, int64_t ts, int type, int id, int64_t addr,
	    int64_t bytes);

/* One analysis pass, as an_*_compute. */
typedef int (*mb_pass)(struct an_profile *p, struct nns_err *err);

/* Clears *p, points it at m, finalizes m when finalize is set, then runs
 * the passes (a NULL-terminated list) in order, asserting each succeeds. */
void mb_compute(struct an_profile *p, struct model *m, int finalize, const mb_pass *passes);

#endif
