/*
 * live_json.h - a .nnst trace followed while it is written (docs/LIVE.md):
 * struct live_follow joins the tail reader (importers/nnst_tail.h) and the
 * incremental analysis (analysis/live.h), and the JSON documents the
 * server and `nnscope top --json` give of it.
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
 * Ownership: struct live_follow is heap storage (open .. close); it owns
 * the tail and the live state. Not thread-safe: one caller at a time.
 */
#ifndef NNS_OUTPUT_LIVE_JSON_H
#define NNS_OUTPUT_LIVE_JSON_H

#include "analysis/live.h"
#include "importers/nnst_tail.h"
#include "output/jsonw.h"

struct fs_root;

struct live_follow {
	struct nnst_tail *tail;
	struct live *live;
	char *path;		/* as opened */
	int64_t refresh_ns;	/* wall time of the last refresh */
	int64_t refreshed_at;	/* CLOCK_MONOTONIC ns of the last refresh, 0 never */
	int64_t grew_at;	/* CLOCK_MONOTONIC ns when new bytes last came, 0 never */
	int failed;		/* a sticky error: err says it */
	struct nns_err err;
};

int live_follow_open(struct live_follow **out, const struct fs_root *root, const char *path,
		     struct nns_err *err);
/* Reads the chunks appended since the last refresh and feeds them. NNS_OK,
 * or the tail's sticky error (also kept in f->err; what was read stays). */
int live_follow_refresh(struct live_follow *f, struct nns_err *err);
/* 1 while the trace is open: no END chunk, no sticky error, and new bytes
 * came within idle_ns of now (or it was opened less than idle_ns ago). */
int live_follow_is_live(const struct live_follow *f, int64_t idle_ns);
void live_follow_close(struct live_follow *f);

/* Writes document `view` (above) of f; `last` = the N of "last N steps"
 * (1..LIVE_RECENT_STEPS; 0: the default, 20). NNS_EINVAL for an unknown
 * view (nothing written). */
int live_json_view(struct jsonw *w, const struct live_follow *f, const char *view, size_t last,
		   int64_t idle_ns);
/* 1 if view is one of the documents above. */
int live_json_has_view(const char *view);

#endif
