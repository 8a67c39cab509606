/*
 * hmap.h - open-addressing hash map from uint64 keys to uint32 values,
 * used to group rows (operators by name, kernels by name, ...).
 * The map owns its table; hmap_release() frees it. Capped by vec.h limits.
 */
#ifndef NNS_COMMON_HMAP_H
#define NNS_COMMON_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct hmap {
	struct hmap_slot *t;
	size_t mask, n;
};

void hmap_init(struct hmap *h);
void hmap_release(struct hmap *h);
/* Finds key; returns a pointer to its value or NULL. */
uint32_t *hmap_get(const struct hmap *h, uint64_t key);
/* Finds or inserts key (value `init` when new). Returns a pointer to the
 * value (valid until the next insert), or NULL when out of memory.
 * *is_new is set when the key was inserted. */
uint32_t *hmap_put(struct hmap *h, uint64_t key, uint32_t init, int *is_new);

static inline uint64_t hmap_pair(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

#endif
