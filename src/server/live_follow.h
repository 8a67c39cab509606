/*
 * live_follow.h - a .nnst trace followed while it is written (docs/LIVE.md):
 * the tail reader (importers/nnst_tail.h) feeding the incremental analysis
 * (analysis/live.h), for `nnscope serve` and `nnscope top`; the documents
 * are output/live_json.h's (live_follow_src gives their head).
 *
 * Ownership: struct live_follow is heap storage (open .. close); it owns
 * the tail and the live state. Not thread-safe: one caller at a time.
 */
#ifndef NNS_SERVER_LIVE_FOLLOW_H
#define NNS_SERVER_LIVE_FOLLOW_H

#include "analysis/live.h"
#include "importers/nnst_tail.h"
#include "output/live_json.h"

struct fs_root;

struct live_follow {
	struct nnst_tail *tail;
	struct live *live;
	char *path;	      /* as opened */
	int64_t refresh_ns;   /* wall time of the last refresh */
	int64_t refreshed_at; /* CLOCK_MONOTONIC ns of the last refresh, 0 never */
	int64_t grew_at;      /* CLOCK_MONOTONIC ns when new bytes last came (or the open) */
	int failed;	      /* a sticky error: err says it */
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
/* The head of its documents (valid while f is). */
void live_follow_src(const struct live_follow *f, int64_t idle_ns, struct live_src *src);
void live_follow_close(struct live_follow *f);

#endif
