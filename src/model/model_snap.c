/*
 * model_snap.c - a finalized model written to and mapped from a section
 * file (model.h, "snapshots"; common/snapfile.h).
 *
 * Sections, in this order: the scalars (struct msnap_head), the string
 * lengths and their bytes, every row array of struct model (wide_ids
 * included), then the index (launch_of, parent, depth, op_of, thread
 * pid/tid numbers). Rows
 * are written as they lie in memory: the signature (struct sizes, the
 * version below) keeps a build from reading another's layout.
 *
 * Reading maps the rows in place. Only the strings are rebuilt (interned
 * again in id order, which gives every string its old id, all of them
 * being distinct) and the thread map, both small beside the rows.
 */
#include "model/model.h"
#include "common/snapfile.h"
#include "common/strhash.h"

#include <stdlib.h>
#include <string.h>

/* Bump when what a section holds changes without its struct size changing. */
#define MODEL_SNAP_VERSION 3u

enum {
	MS_HEAD = 0x100,
	MS_STRLEN,
	MS_STRBYTES,
	MS_THREADS,
	MS_EVENTS,
	MS_DEV_ARGS,
	MS_OP_ARGS,
	MS_MEMS,
	MS_FLOWS,
	MS_COUNTERS,
	MS_DEVICES,
	MS_QUEUES,
	MS_SAMPLES,
	MS_INSTANTS,
	MS_META,
	MS_HOST,
	MS_LAUNCH_OF,
	MS_PARENT,
	MS_DEPTH,
	MS_OP_OF,
	MS_THREAD_PID,
	MS_THREAD_TID,
	MS_WIDE_IDS,
};

/* The scalars of struct model. */
struct msnap_head {
	int64_t schema_version, base_time_ns, dist_rank, dist_world_size, pid, mono_offset_ns;
	int64_t min_ts, max_end;
	uint64_t sorted_n, nstrings;
	int32_t is_lightning, finalized;
	uint32_t dist_backend, worker, span;
	uint32_t has_launch, has_index, kinds;
	struct model_diag diag;
	struct model_attr attr;
};

uint64_t model_snap_sig(void)
{
	const uint64_t sizes[] = {MODEL_SNAP_VERSION,
				  sizeof(struct msnap_head),
				  sizeof(struct model_thread),
				  sizeof(struct model_event),
				  sizeof(struct model_dev_args),
				  sizeof(struct model_op_args),
				  sizeof(struct model_mem),
				  sizeof(struct model_flow),
				  sizeof(struct model_counter),
				  sizeof(struct model_device),
				  sizeof(struct model_queue),
				  sizeof(struct model_sample),
				  sizeof(struct model_instant),
				  sizeof(struct model_meta),
				  sizeof(struct model_host),
				  MK__COUNT,
				  sizeof(void *)};

	return strhash_add(STRHASH_INIT, sizes, sizeof(sizes));
}

/* ---- writing ------------------------------------------------------------ */

static void write_strings(const struct model *m, struct snapw *w)
{
	const struct strpool *sp = &m->strings;
	size_t total = 0, at = 0, i;
	char *buf;

	for (i = 0; i < sp->count; i++)
		total += sp->len[i];
	if (!(buf = malloc(total + 1))) {
		w->rc = nns_err_set(w->err, NNS_ENOMEM, "writing the snapshot: out of memory");
		return;
	}
	for (i = 0; i < sp->count; i++) {
		memcpy(buf + at, sp->str[i], sp->len[i]);
		at += sp->len[i];
	}
	snapw_add(w, MS_STRLEN, sp->len, sp->count * sizeof(*sp->len));
	snapw_add(w, MS_STRBYTES, buf, total);
	free(buf);
}

void model_snap_write(const struct model *m, struct snapw *w)
{
	struct msnap_head h;
	size_t n = m->events.n, nt = m->threads.n;
	int ix = m->parent && m->depth && m->op_of && m->thread_pid && m->thread_tid;

	memset(&h, 0, sizeof(h));
	h.schema_version = m->schema_version;
	h.base_time_ns = m->base_time_ns;
	h.dist_rank = m->dist_rank;
	h.dist_world_size = m->dist_world_size;
	h.pid = m->pid;
	h.mono_offset_ns = m->mono_offset_ns;
	h.min_ts = m->min_ts;
	h.max_end = m->max_end;
	h.sorted_n = m->sorted_n;
	h.nstrings = m->strings.count;
	h.is_lightning = m->is_lightning;
	h.finalized = m->finalized;
	h.dist_backend = m->dist_backend;
	h.worker = m->worker;
	h.span = m->span;
	h.has_launch = m->launch_of != NULL;
	h.has_index = (uint32_t)ix;
	h.kinds = m->kinds;
	h.diag = m->diag;
	h.attr = m->attr;
	snapw_add(w, MS_HEAD, &h, sizeof(h));
	write_strings(m, w);
#define ROWS(tag, vec) snapw_add(w, tag, (vec).v, (vec).n * sizeof(*(vec).v))
	ROWS(MS_THREADS, m->threads);
	ROWS(MS_EVENTS, m->events);
	ROWS(MS_DEV_ARGS, m->dev_args);
	ROWS(MS_OP_ARGS, m->op_args);
	ROWS(MS_MEMS, m->mems);
	ROWS(MS_FLOWS, m->flows);
	ROWS(MS_COUNTERS, m->counters);
	ROWS(MS_DEVICES, m->devices);
	ROWS(MS_QUEUES, m->queues);
	ROWS(MS_SAMPLES, m->samples);
	ROWS(MS_INSTANTS, m->instants);
	ROWS(MS_META, m->meta);
	ROWS(MS_HOST, m->host);
	ROWS(MS_WIDE_IDS, m->wide_ids);
#undef ROWS
	snapw_add(w, MS_LAUNCH_OF, m->launch_of, h.has_launch ? n * sizeof(*m->launch_of) : 0);
	snapw_add(w, MS_PARENT, m->parent, ix ? n * sizeof(*m->parent) : 0);
	snapw_add(w, MS_DEPTH, m->depth, ix ? n * sizeof(*m->depth) : 0);
	snapw_add(w, MS_OP_OF, m->op_of, ix ? n * sizeof(*m->op_of) : 0);
	snapw_add(w, MS_THREAD_PID, m->thread_pid, ix ? nt * sizeof(*m->thread_pid) : 0);
	snapw_add(w, MS_THREAD_TID, m->thread_tid, ix ? nt * sizeof(*m->thread_tid) : 0);
}

/* ---- reading ------------------------------------------------------------ */

static int read_strings(struct model *m, struct snapr *r, const struct msnap_head *h,
			struct nns_err *err)
{
	const uint32_t *len;
	const char *bytes;
	size_t nlen, nbytes, at = 0, i;

	if (!(len = snapr_next(r, MS_STRLEN, sizeof(*len), &nlen, err)) ||
	    !(bytes = snapr_next(r, MS_STRBYTES, 1, &nbytes, err)))
		return NNS_EFORMAT;
	if (nlen != h->nstrings || nlen == 0 || len[0] != 0)
		return nns_err_set(err, NNS_EFORMAT, "snapshot: its string table is damaged");
	for (i = 1; i < nlen; i++) {
		if (len[i] > nbytes - at)
			return nns_err_set(err, NNS_EFORMAT, "snapshot: its strings are cut short");
		if (strpool_intern(&m->strings, bytes + at, len[i]) != i)
			return nns_err_set(err, NNS_EFORMAT,
					   "snapshot: string %zu repeats or does not fit", i);
		at += len[i];
	}
	return NNS_OK;
}

/* Points vec at the next section's rows (cap = n: never grown). */
#define MAP_ROWS(tag, vec)                                                                         \
	do {                                                                                       \
		size_t n_;                                                                         \
		const void *p_ = snapr_next(r, tag, sizeof(*(vec).v), &n_, err);                   \
		if (!p_)                                                                           \
			goto bad;                                                                  \
		(vec).v = (void *)p_;                                                              \
		(vec).n = (vec).cap = n_;                                                          \
	} while (0)

/* Points arr at the next section, which must hold want elements (or none
 * when !present: arr stays NULL). */
#define MAP_ARRAY(tag, arr, want, present)                                                         \
	do {                                                                                       \
		size_t n_;                                                                         \
		const void *p_ = snapr_next(r, tag, sizeof(*(arr)), &n_, err);                     \
		if (!p_)                                                                           \
			goto bad;                                                                  \
		if (n_ != ((present) ? (want) : 0)) {                                              \
			nns_err_set(err, NNS_EFORMAT,                                              \
				    "snapshot: section %d has %zu rows, not %zu", tag, n_,         \
				    (size_t)((present) ? (want) : 0));                             \
			goto bad;                                                                  \
		}                                                                                  \
		if (present)                                                                       \
			(arr) = (void *)p_;                                                        \
	} while (0)

int model_snap_read(struct model *m, struct snapr *r, struct nns_err *err)
{
	const struct msnap_head *hp;
	struct msnap_head h;
	size_t nh, i;

	if (model_init(m) != NNS_OK) {
		snap_map_release(&r->map);
		return nns_err_set(err, NNS_ENOMEM, "snapshot: out of memory");
	}
	m->map = r->map; /* from here on the model owns the mapping */
	r->map.base = NULL;
	r->map.len = 0;
	if (!(hp = snapr_next(r, MS_HEAD, sizeof(h), &nh, err)))
		goto bad;
	if (nh != 1) {
		nns_err_set(err, NNS_EFORMAT, "snapshot: its head is damaged");
		goto bad;
	}
	h = *hp;
	if (read_strings(m, r, &h, err) != NNS_OK)
		goto bad;
	m->schema_version = h.schema_version;
	m->base_time_ns = h.base_time_ns;
	m->dist_rank = h.dist_rank;
	m->dist_world_size = h.dist_world_size;
	m->pid = h.pid;
	m->mono_offset_ns = h.mono_offset_ns;
	m->min_ts = h.min_ts;
	m->max_end = h.max_end;
	m->sorted_n = (size_t)h.sorted_n;
	m->is_lightning = h.is_lightning;
	m->finalized = h.finalized;
	m->dist_backend = h.dist_backend;
	m->worker = h.worker;
	m->span = h.span;
	m->diag = h.diag;
	m->attr = h.attr;
	m->kinds = h.kinds;
	MAP_ROWS(MS_THREADS, m->threads);
	MAP_ROWS(MS_EVENTS, m->events);
	MAP_ROWS(MS_DEV_ARGS, m->dev_args);
	MAP_ROWS(MS_OP_ARGS, m->op_args);
	MAP_ROWS(MS_MEMS, m->mems);
	MAP_ROWS(MS_FLOWS, m->flows);
	MAP_ROWS(MS_COUNTERS, m->counters);
	MAP_ROWS(MS_DEVICES, m->devices);
	MAP_ROWS(MS_QUEUES, m->queues);
	MAP_ROWS(MS_SAMPLES, m->samples);
	MAP_ROWS(MS_INSTANTS, m->instants);
	MAP_ROWS(MS_META, m->meta);
	MAP_ROWS(MS_HOST, m->host);
	MAP_ROWS(MS_WIDE_IDS, m->wide_ids);
	MAP_ARRAY(MS_LAUNCH_OF, m->launch_of, m->events.n, h.has_launch);
	MAP_ARRAY(MS_PARENT, m->parent, m->events.n, h.has_index);
	MAP_ARRAY(MS_DEPTH, m->depth, m->events.n, h.has_index);
	MAP_ARRAY(MS_OP_OF, m->op_of, m->events.n, h.has_index);
	MAP_ARRAY(MS_THREAD_PID, m->thread_pid, m->threads.n, h.has_index);
	MAP_ARRAY(MS_THREAD_TID, m->thread_tid, m->threads.n, h.has_index);
	for (i = 0; i < m->threads.n; i++) {
		int isnew;
		const struct model_thread *t = &m->threads.v[i];

		if (!hmap_put(&m->thread_ix, hmap_pair(t->pid, t->tid), (uint32_t)i, &isnew)) {
			nns_err_set(err, NNS_ENOMEM, "snapshot: out of memory");
			goto bad;
		}
	}
	return NNS_OK;
bad:
	model_release(m);
	return err && err->code ? err->code : NNS_EFORMAT;
}
