/*
 * marey_cache.c - a small LRU of Marey documents keyed by (profiler
 * directory, step) (marey_cache.h).
 */
#include "server/marey_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mc_init(struct marey_cache *c)
{
	memset(c, 0, sizeof(*c));
	return pthread_mutex_init(&c->mu, NULL) ? -1 : 0;
}

static void drop(struct marey_cache *c, struct mc_entry *e)
{
	c->bytes -= e->len;
	free(e->key);
	free(e->doc);
	memset(e, 0, sizeof(*e));
}

void mc_release(struct marey_cache *c)
{
	for (int i = 0; i < MC_MAX; i++)
		if (c->e[i].key)
			drop(c, &c->e[i]);
	pthread_mutex_destroy(&c->mu);
}

/* "<dir>\n<step>", malloc'd, or NULL. */
static char *make_key(const char *dir, const char *step)
{
	size_t n = strlen(dir) + strlen(step) + 2;
	char *k = malloc(n);

	if (k)
		snprintf(k, n, "%s\n%s", dir, step);
	return k;
}

static struct mc_entry *find(struct marey_cache *c, const char *key)
{
	for (int i = 0; i < MC_MAX; i++)
		if (c->e[i].key && !strcmp(c->e[i].key, key))
			return &c->e[i];
	return NULL;
}

char *mc_get(struct marey_cache *c, const char *dir, const char *step, size_t *len)
{
	char *key = make_key(dir, step), *out = NULL;
	struct mc_entry *e;

	if (!key)
		return NULL;
	pthread_mutex_lock(&c->mu);
	if ((e = find(c, key)) && (out = malloc(e->len + 1))) {
		memcpy(out, e->doc, e->len);
		out[e->len] = 0;
		*len = e->len;
		e->used = ++c->tick;
	}
	pthread_mutex_unlock(&c->mu);
	free(key);
	return out;
}

void mc_put(struct marey_cache *c, const char *dir, const char *step, const char *doc, size_t len)
{
	char *key, *copy;
	struct mc_entry *e;

	if (len > MC_MAX_BYTES || !len)
		return;
	key = make_key(dir, step);
	copy = malloc(len);
	if (!key || !copy) {
		free(key);
		free(copy);
		return;
	}
	memcpy(copy, doc, len);
	pthread_mutex_lock(&c->mu);
	if ((e = find(c, key)))
		drop(c, e);
	for (;;) {
		struct mc_entry *lru = NULL, *slot = NULL;

		for (int i = 0; i < MC_MAX; i++) {
			if (!c->e[i].key) {
				slot = slot ? slot : &c->e[i];
				continue;
			}
			if (!lru || c->e[i].used < lru->used)
				lru = &c->e[i];
		}
		if (slot && c->bytes + len <= MC_MAX_BYTES) {
			slot->key = key;
			slot->doc = copy;
			slot->len = len;
			slot->used = ++c->tick;
			c->bytes += len;
			break;
		}
		if (!lru) { /* not reached: len <= MC_MAX_BYTES */
			free(key);
			free(copy);
			break;
		}
		drop(c, lru);
	}
	pthread_mutex_unlock(&c->mu);
}
