/*
 * names.c - nns_name(): the process-wide table of interned event names.
 *
 * Ids are dense, start at 1 (0 is "no name", the empty string) and stay
 * valid for the life of the process, across profilers and in forked
 * children, so programs intern once at start-up. A mutex guards the table:
 * interning is not on the hot path (nns_push takes an id). Each writer
 * serialises the ids its file has not seen yet into STRINGS chunks before
 * the events that use them. The table is capped at 1M names / 64 MiB; past
 * the cap nns_name returns 0. Names longer than 64 KiB are cut.
 *
 * Across exec (handoff.c), the new image writes on in its predecessor's
 * file: its ids start after the ids that file already defines
 * (nns_names_set_base, before the first nns_name), so a reader sees one
 * dense id space per file.
 */
#include "collector/collector.h"
#include "common/strpool.h"

#include <string.h>

#define NAMES_MAX_BYTES ((size_t)64 << 20)
#define NAMES_MAX_COUNT (1u << 20)
#define NAMES_MAX_LEN 65535 /* longer names are cut */

static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;
static struct strpool names;
static int names_ok = -1;   /* -1 not yet initialised, 0 failed, 1 ready */
static uint32_t names_base; /* ids of this image are base + the pool's index */

static int ready_locked(void)
{
	if (names_ok < 0) {
		names_ok = strpool_init(&names) == 0;
		names.max_bytes = NAMES_MAX_BYTES;
	}
	return names_ok;
}

NNS_API uint32_t nns_name(const char *name)
{
	uint32_t id = 0;
	size_t n;

	if (!name || !*name)
		return 0;
	n = strnlen(name, NAMES_MAX_LEN);
	pthread_mutex_lock(&names_mu);
	if (ready_locked()) {
		id = strpool_find(&names, name, n);
		if (id == STRPOOL_NONE) {
			id = 0;
			if (names.count < NAMES_MAX_COUNT) {
				id = strpool_intern(&names, name, n);
				if (id == STRPOOL_NONE)
					id = 0;
			}
		}
		if (id)
			id += names_base;
	}
	pthread_mutex_unlock(&names_mu);
	return id;
}

uint32_t nns_names_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&names_mu);
	n = names_base + (names_ok > 0 && names.count > 0 ? (uint32_t)names.count - 1 : 0);
	pthread_mutex_unlock(&names_mu);
	return n + 1;
}

void nns_names_set_base(uint32_t base)
{
	pthread_mutex_lock(&names_mu);
	if (ready_locked() && names.count <= 1 && base < UINT32_MAX - NAMES_MAX_COUNT)
		names_base = base;
	pthread_mutex_unlock(&names_mu);
}

int nns_names_serialize(uint32_t *from, struct nnst_buf *b)
{
	int more = 0;

	pthread_mutex_lock(&names_mu);
	if (names_ok > 0) {
		if (*from <= names_base)
			*from =
			    names_base + 1; /* id 0 is implicit, lower ids were written before */
		while (*from - names_base < names.count) {
			uint32_t local = *from - names_base;

			if (nnst_buf_string(b, *from, strpool_get(&names, local),
					    strpool_len(&names, local))) {
				more = 1;
				break;
			}
			(*from)++;
		}
	}
	pthread_mutex_unlock(&names_mu);
	return more;
}

void nns_names_atfork_prepare(void)
{
	pthread_mutex_lock(&names_mu);
}

void nns_names_atfork_parent(void)
{
	pthread_mutex_unlock(&names_mu);
}

void nns_names_atfork_child(void)
{
	pthread_mutex_unlock(&names_mu);
}
