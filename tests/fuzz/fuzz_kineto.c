/*
 * fuzz_kineto.c - libFuzzer target for the Kineto JSON importer.
 *
 * Each input is parsed three ways: with kineto_load_buffer (the public
 * path, gzip included), with a tiny parse window chosen from the input's
 * first byte (every unit then crosses refills and restarts), and split
 * between 2-4 threads as if it were a large file (speculative chunks,
 * resync and serial fallback). The three must agree on the status and on
 * every row count, and none may crash, hang, leak or trip a sanitizer.
 */
#include "importers/kineto_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct counts {
	int rc;
	size_t ev, mem, flow, ctr, dev, thr, dargs, oargs;
	int64_t skipped;
};

static void count(struct counts *c, int rc, const struct model *m)
{
	c->rc = rc;
	c->ev = m->events.n;
	c->mem = m->mems.n;
	c->flow = m->flows.n;
	c->ctr = m->counters.n;
	c->dev = m->devices.n;
	c->thr = m->threads.n;
	c->dargs = m->dev_args.n;
	c->oargs = m->op_args.n;
	c->skipped = m->diag.events_skipped;
}

static void same(const struct counts *a, const struct counts *b)
{
	if (a->rc == NNS_ENOMEM || b->rc == NNS_ENOMEM)
		return;
	if (a->rc != b->rc)
		__builtin_trap();
	if (a->rc != NNS_OK && a->rc != NNS_ETRUNC)
		return; /* model unspecified after other errors */
	if (a->ev != b->ev || a->mem != b->mem || a->flow != b->flow || a->ctr != b->ctr ||
	    a->dev != b->dev || a->dargs != b->dargs || a->oargs != b->oargs ||
	    a->skipped != b->skipped)
		__builtin_trap();
}

static void parse_internal(const uint8_t *data, size_t size, size_t window, int threads,
			   struct counts *c)
{
	struct kineto_opts o = {.threads = threads};
	struct nns_err err;
	struct model m;
	struct ksrc src;

	if (model_init(&m))
		return;
	ksrc_mem(&src, (const char *)data, size, 0, "fuzz.json");
	count(
	    c,
	    kineto_parse_source(&src, (int64_t)size, 1, "fuzz.json", &m, &o, window, 1, NULL, &err),
	    &m);
	ksrc_close(&src);
	model_release(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kineto_opts o = {.threads = 1};
	struct counts a, b, c;
	struct nns_err err;
	struct model m;
	size_t window;

	if (model_init(&m))
		return 0;
	count(&a, kineto_load_buffer((const char *)data, size, "fuzz.json", &m, &o, &err), &m);
	model_release(&m);
	if (size < 2 || ksrc_is_gz(data, size))
		return 0;
	window = 64 + data[0] % 200;
	parse_internal(data, size, window, 1, &b);
	same(&a, &b);
	parse_internal(data, size, window, 2 + data[size - 1] % 3, &c);
	same(&a, &c);
	return 0;
}
