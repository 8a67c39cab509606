/*
 * live_json.h - the JSON documents of a .nnst trace followed while it is
 * written (docs/LIVE.md): of its incremental analysis (analysis/live.h)
 * and of where it comes from (struct live_src: the follower's counters,
 * server/live_follow.h), for the server and `nnscope top --json`.
 *
 * Documents (docs/LIVE.md has every key):
 *   "summary"    the live summary: file, bytes read (total and by the last
 *                refresh: the counter tests read), step statistics of the
 *                last N steps and of the run, throughput, the completed
 *                steps (start, total and breakdown), top operators and
 *                kernels of the last N steps and of the run, memory, CPU.
 *   "overview", "operators", "kernels", "memory", "cpu", "datapipe"
 *                the keys of `nnscope analyse`'s documents of the same
 *                names (docs/CLI.md) that a live trace can give (a subset:
 *                the rest is absent), plus "live": {...} (the summary's
 *                head: state, bytes, steps), so that the page draws a live
 *                run with the views it draws a finished one with.
 *
 * Writers only: nothing here reads a file.
 */
#ifndef NNS_OUTPUT_LIVE_JSON_H
#define NNS_OUTPUT_LIVE_JSON_H

#include "analysis/live.h"
#include "output/jsonw.h"

/* Where the state comes from (the follower's counters, server/live_follow.h):
 * the head of every document. */
struct live_src {
	const char *file;
	int live, ended;
	const char *error; /* a sticky error of the follower, NULL none */
	int64_t file_size, bytes_read, refresh_bytes, refreshes, chunks;
	double refresh_ms;
};

/* Writes document `view` (above) of f; `last` = the N of "last N steps"
 * (1..LIVE_RECENT_STEPS; 0: the default, 20). NNS_EINVAL for an unknown
 * view (nothing written). */
int live_json_view(struct jsonw *w, const struct live *l, const struct live_src *src,
		   const char *view, size_t last);
/* The summary's "memory" array (one object per device: "device" "CPU" /
 * "GPU<n>", allocated, reserved and their peaks in bytes), for a document
 * of its own (nnscope top --json). */
void live_json_memory(struct jsonw *w, const struct live *l);
/* 1 if view is one of the documents above. */
int live_json_has_view(const char *view);

#endif
