/*
 * ms_timeline_int.h - what ms_timeline.c (ranks, files) and
 * ms_timeline_planes.c (the planes' events) share.
 */
#ifndef NNS_IMPORTERS_MS_TIMELINE_INT_H
#define NNS_IMPORTERS_MS_TIMELINE_INT_H

#include "importers/ms_json.h"
#include "importers/ms_timeline.h"

/* The writer of one rank's events. */
struct mstl_w {
	struct buf *b;
	int *first;	   /* 1 until the first event is written */
	int rank;	   /* appended to every pid, " rank<r>" to process names */
	int64_t offset_ns; /* added to every non-zero ts */
	int oom;	   /* an append failed */
};

void mstl_id_text(const struct msj *j, const struct msj_node *x, char *out, size_t n);
/* Step Trace from one step_trace file. */
void mstl_step_trace(struct mstl_w *w, const struct msj *j, const struct mstl_opts *o);
/* Overlap Analysis from the msprof files. */
void mstl_overlap(struct mstl_w *w, struct msj *files, size_t n);
/* Ascend Hardware (pname "Ascend Hardware", task_time files) or HCCL. */
void mstl_copy_plane(struct mstl_w *w, struct msj *files, size_t n, const char *pname);

/* The steps of a loaded rank from its Step Trace plane
 * (ms_timeline_steps.c): on an open model, before model_finalize. */
int mstl_add_steps(struct model *m, struct nns_err *err);

#endif
