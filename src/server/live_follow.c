/*
 * live_follow.c - a .nnst trace followed while it is written
 * (live_follow.h): each refresh polls the tail and feeds what it hands
 * over to the incremental analysis.
 */
#include "server/live_follow.h"

#include "common/clock.h"

#include <stdlib.h>
#include <string.h>

int live_follow_open(struct live_follow **out, const struct fs_root *root, const char *path,
		     struct nns_err *err)
{
	struct live_follow *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f || !(f->path = strdup(path)) || !(f->live = live_new())) {
		if (f)
			free(f->path);
		free(f);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	}
	if ((rc = nnst_tail_open(&f->tail, root, path, err))) {
		live_free(f->live);
		free(f->path);
		free(f);
		return rc;
	}
	f->grew_at = clock_mono_ns();
	*out = f;
	return NNS_OK;
}

static int feed(void *arg, uint32_t type, const uint8_t *payload, uint32_t len)
{
	struct live_follow *f = arg;

	if (!f->live->have_hdr) {
		const struct nnst_header *h = nnst_tail_header(f->tail);

		if (h && live_header(f->live, h))
			return NNS_ENOMEM;
	}
	return live_feed(f->live, type, payload, len);
}

int live_follow_refresh(struct live_follow *f, struct nns_err *err)
{
	int64_t t0 = clock_mono_ns();
	int rc;

	if (f->failed)
		return nns_err_set(err, f->err.code, "%s", f->err.msg);
	rc = nnst_tail_poll(f->tail, feed, f, &f->err);
	f->refreshed_at = clock_mono_ns();
	f->refresh_ns = f->refreshed_at - t0;
	if (nnst_tail_stats(f->tail)->last_bytes)
		f->grew_at = f->refreshed_at;
	if (rc == NNS_ENOMEM) /* what did not fit is lost; the next refresh goes on */
		return nns_err_set(err, rc, "%s", f->err.msg);
	if (rc) {
		f->failed = 1;
		return nns_err_set(err, rc, "%s", f->err.msg);
	}
	return NNS_OK;
}

int live_follow_is_live(const struct live_follow *f, int64_t idle_ns)
{
	return !f->failed && !nnst_tail_stats(f->tail)->ended &&
	       clock_mono_ns() - f->grew_at < idle_ns;
}

void live_follow_close(struct live_follow *f)
{
	if (!f)
		return;
	nnst_tail_close(f->tail);
	live_free(f->live);
	free(f->path);
	free(f);
}

void live_follow_src(const struct live_follow *f, int64_t idle_ns, struct live_src *src)
{
	const struct nnst_tail_stats *ts = nnst_tail_stats(f->tail);

	memset(src, 0, sizeof(*src));
	src->file = f->path;
	src->live = live_follow_is_live(f, idle_ns);
	src->ended = ts->ended;
	src->error = f->failed ? f->err.msg : NULL;
	src->file_size = ts->size;
	src->bytes_read = (int64_t)ts->bytes_read;
	src->refresh_bytes = (int64_t)ts->last_bytes;
	src->refreshes = (int64_t)ts->polls;
	src->chunks = (int64_t)ts->chunks;
	src->refresh_ms = (double)f->refresh_ns / 1e6;
}
