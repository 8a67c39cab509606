/*
 * events.c - the event calls of nnscope.h, the collector's hot path.
 *
 * Each call: one relaxed load of the state word and a predictable branch
 * (all that a disabled profiler costs); then a raw timestamp, a 32-byte
 * store into the calling thread's current block and a release store of the
 * block's count. The slot is reserved (pos++) before it is written, so an
 * event emitted by a signal handler that interrupts another never shares
 * its slot. Only a thread's first event (registration) and a full block
 * leave this file (nns_tb_slow); a full block costs a few atomics, and a
 * futex wake only when the writer thread sleeps idle.
 */
#include "collector/collector.h"
#include "collector/tsc.h"

#include <string.h>

static inline struct nns_tbuf *reserve(uint32_t k, uint32_t *slot)
{
	struct nns_tbuf *t = nns_tls;

	if (NNS_UNLIKELY(!t || t->pos + k > t->cap) && !(t = nns_tb_slow(k)))
		return NULL;
	*slot = t->pos;
	t->pos += k;
	atomic_signal_fence(memory_order_seq_cst);
	return t;
}

static inline void publish(struct nns_tbuf *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(t->pub, t->pos, memory_order_release);
}

static inline void put(struct nnst_event *e, uint64_t ts, uint8_t type, uint8_t flags,
		       uint32_t name, int16_t device, uint64_t a, uint64_t b)
{
	e->ts = ts;
	e->name = name;
	e->type = type;
	e->flags = flags;
	e->device = device;
	e->a = a;
	e->b = b;
}

static void write1(struct nns_tbuf *t, uint64_t ts, uint32_t st, uint8_t type, uint32_t name,
		   uint64_t a, uint64_t b)
{
	uint32_t i = t->pos;

	t->pos = i + 1;
	atomic_signal_fence(memory_order_seq_cst);
	put(t->ev + i, ts, type, NNS_ST_FLAGS(st), name, -1, a, b);
	publish(t);
}

static __attribute__((noinline)) void emit_slow(uint64_t ts, uint32_t st, uint8_t type,
						uint32_t name, uint64_t a, uint64_t b)
{
	struct nns_tbuf *t = nns_tb_slow(1);

	if (t)
		write1(t, ts, st, type, name, a, b);
}

/* Out of line, so that the disabled path of each call is load, test, return
 * (no register saves); the enabled path tail-calls it, and it tail-calls
 * the slow path. */
static __attribute__((noinline)) void emit(uint32_t st, uint8_t type, uint32_t name, uint64_t a,
					   uint64_t b)
{
	uint64_t ts = nns_now();
	struct nns_tbuf *t = nns_tls;

	if (NNS_UNLIKELY(!t || t->pos >= t->cap)) {
		emit_slow(ts, st, type, name, a, b);
		return;
	}
	write1(t, ts, st, type, name, a, b);
}

static inline uint32_t state(void)
{
	return nns_state_load();
}

void nns_emit_control(uint8_t type, uint8_t flags, uint64_t a, uint64_t b)
{
	emit((uint32_t)flags << 8, type, 0, a, b);
}

NNS_API void nns_push(uint32_t name)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_RANGE)))
		return;
	emit(st, NNST_EV_PUSH, name, 0, 0);
}

NNS_API void nns_pop(void)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_RANGE)))
		return;
	emit(st, NNST_EV_POP, 0, 0, 0);
}

NNS_API void nns_push_str(const char *name)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_RANGE)))
		return;
	emit(st, NNST_EV_PUSH, nns_name(name), 0, 0);
}

static __attribute__((noinline)) uint64_t begin(uint32_t st, uint32_t name)
{
	uint64_t ts = nns_now(), h;
	uint32_t i;
	struct nns_tbuf *t = reserve(1, &i);

	if (!t)
		return 0;
	h = (uint64_t)(t->index + 1) << 40 | (++t->handles & ((UINT64_C(1) << 40) - 1));
	put(t->ev + i, ts, NNST_EV_BEGIN, NNS_ST_FLAGS(st), name, -1, h, 0);
	publish(t);
	return h;
}

NNS_API uint64_t nns_begin(uint32_t name)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_RANGE)))
		return 0;
	return begin(st, name);
}

NNS_API void nns_end(uint64_t handle)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_RANGE)) || !handle)
		return;
	emit(st, NNST_EV_END, 0, handle, 0);
}

NNS_API void nns_mark(uint32_t name)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_MARK)))
		return;
	emit(st, NNST_EV_MARK, name, 0, 0);
}

NNS_API void nns_counter(uint32_t name, double value)
{
	uint32_t st = state();
	uint64_t bits;

	if (NNS_LIKELY(!(st & NNS_CAT_MARK)))
		return;
	memcpy(&bits, &value, sizeof(bits));
	emit(st, NNST_EV_COUNTER, name, bits, 0);
}

NNS_API void nns_flow(uint32_t name, uint64_t id, char phase)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_MARK)))
		return;
	emit(st, NNST_EV_FLOW, name, id, (uint8_t)phase);
}

static __attribute__((noinline)) void mem_event(uint32_t st, uint8_t type, const void *ptr,
						uint64_t bytes, int device, int64_t total_allocated,
						int64_t total_reserved)
{
	int16_t dev = device < -1 ? -1 : device > INT16_MAX ? INT16_MAX : (int16_t)device;
	uint64_t ts = nns_now();
	uint32_t i;
	struct nns_tbuf *t = reserve(2, &i);

	if (!t)
		return;
	put(t->ev + i, ts, type, NNS_ST_FLAGS(st), 0, dev, (uint64_t)(uintptr_t)ptr, bytes);
	put(t->ev + i + 1, ts, NNST_EV_MEMTOTAL, NNS_ST_FLAGS(st), 0, dev,
	    (uint64_t)total_allocated, (uint64_t)total_reserved);
	publish(t);
}

/* The memory entry points: one load and a branch when memory is off. */
static inline void mem_if_on(uint8_t type, const void *ptr, uint64_t bytes, int device,
			     int64_t total_allocated, int64_t total_reserved)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_MEM)))
		return;
	mem_event(st, type, ptr, bytes, device, total_allocated, total_reserved);
}

NNS_API void nns_mem_alloc(const void *ptr, uint64_t bytes, int device, int64_t total_allocated,
			   int64_t total_reserved)
{
	mem_if_on(NNST_EV_ALLOC, ptr, bytes, device, total_allocated, total_reserved);
}

NNS_API void nns_mem_free(const void *ptr, uint64_t bytes, int device, int64_t total_allocated,
			  int64_t total_reserved)
{
	mem_if_on(NNST_EV_FREE, ptr, bytes, device, total_allocated, total_reserved);
}

NNS_API void nns_queue(uint32_t queue_name, uint32_t size, uint32_t capacity)
{
	uint32_t st = state();

	if (NNS_LIKELY(!(st & NNS_CAT_QUEUE)))
		return;
	emit(st, NNST_EV_QUEUE, queue_name, size, capacity);
}
