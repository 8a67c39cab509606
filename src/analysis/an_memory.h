/*
 * an_memory.h - the memory view of a worker (AN_PASS_MEMORY, memory.c):
 * per device, allocations by operator, the allocated/reserved curve and
 * the paired allocation events.
 */
#ifndef NNS_ANALYSIS_AN_MEMORY_H
#define NNS_ANALYSIS_AN_MEMORY_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_mem_op_row {
	uint32_t name;
	int64_t calls;
	int64_t size_increase, self_size_increase;
	int64_t alloc_count, self_alloc_count;
	int64_t alloc_size, self_alloc_size;
};

struct an_mem_point {
	int64_t ts; /* ns, absolute */
	int64_t allocated, reserved;
};

struct an_mem_event {
	uint32_t op; /* string id of the allocating op, 0 unknown; label: an_mem_event_label */
	int64_t addr;
	int64_t size;
	int64_t alloc_ts, free_ts; /* MODEL_NONE when unpaired */
	uint32_t parent_op;	   /* when op is aten::empty*: the enclosing op's name
				    * (string id), shown as "<parent> (<op>)"; else 0 */
};

/* Writes the tb_plugin label of an event's op ("<unknown>", "op" or
 * "<parent> (aten::empty...)") into buf; returns snprintf's result. */
int an_mem_event_label(const struct model *m, const struct an_mem_event *e, char *buf, size_t n);

struct an_mem_device {
	char name[16]; /* "CPU", "GPU0", ... */
	int device_type, device_id;
	int64_t peak_allocated; /* max Total Allocated, -1 if no totals */
	int64_t records;	/* [memory] records (allocations and frees), with or
				 * without an address: old traces have none, so
				 * `events` (paired by address) stays empty */
	VEC(struct an_mem_op_row) ops;
	VEC(struct an_mem_point) curve; /* down-sampled, peak kept */
	VEC(struct an_mem_event) events;
};

struct an_memory {
	VEC(struct an_mem_device) devices;
};

/* AN_PASS_MEMORY: fills p->memory. */
int an_memory_compute(struct an_profile *p, struct nns_err *err);

#endif
