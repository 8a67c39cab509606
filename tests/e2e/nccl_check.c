/*
 * nccl_check.c - prints the NCCL collective records (NNST_GPU_COLL) of a
 * .nnst file, one line each, and the nccl_profiler* META keys, for
 * tests/e2e/nccl_plugin.sh (owner: the collector). Built by that script
 * from the format reader (src/format), nothing else:
 *
 *   nccl_check FILE
 *   coll name=AllReduce count=N hash=0x.. dtype=.. algo=.. proto=.. rank=N
 *        nranks=N root=N seq=N tid=N start_ns=N dur_us=N exec=0|1|2 hostclock=0|1
 *   (start_ns: CLOCK_MONOTONIC ns of a host-clock record, else its start)
 *   meta nccl_profiler=...
 * Exit status 0 when the file reads to its end, 1 otherwise.
 */
#include "format/nnst.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXS (1u << 20)

static char *str[MAXS];

static const char *S(uint32_t id)
{
	return id && id < MAXS && str[id] ? str[id] : "";
}

int main(int argc, char **argv)
{
	struct nnst_reader *r;
	struct nnst_clockmap cm = {0};
	struct nnst_gpu *g = NULL;
	size_t ng = 0, cap = 0;
	char err[256];
	const uint8_t *p;
	uint32_t type, len;
	int rc;

	if (argc != 2 || nnst_reader_open(&r, argv[1], err, sizeof(err))) {
		fprintf(stderr, "nccl_check: %s\n", argc == 2 ? err : "usage: nccl_check FILE");
		return 1;
	}
	cm.tsc = (nnst_reader_header(r)->flags & NNST_F_TSC) != 0;
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1) {
		if (type == NNST_CHUNK_STRINGS) {
			for (uint32_t o = 0; o + 8 <= len;) {
				uint32_t id, n;

				memcpy(&id, p + o, 4);
				memcpy(&n, p + o + 4, 4);
				if (o + 8 + n > len)
					break;
				if (id < MAXS && !str[id]) {
					str[id] = malloc(n + 1);
					memcpy(str[id], p + o + 8, n);
					str[id][n] = 0;
				}
				o += 8 + n;
			}
		} else if (type == NNST_CHUNK_CLOCK) {
			for (uint32_t o = 0; o + sizeof(struct nnst_clock) <= len;
			     o += sizeof(struct nnst_clock)) {
				struct nnst_clock c;

				memcpy(&c, p + o, sizeof(c));
				nnst_clockmap_add(&cm, &c);
			}
		} else if (type == NNST_CHUNK_GPU) {
			size_t n = len / sizeof(struct nnst_gpu);

			if (ng + n > cap) {
				struct nnst_gpu *grown = realloc(g, (ng + n) * 2 * sizeof(*g));

				if (!grown) {
					fprintf(stderr, "nccl_check: out of memory\n");
					free(g);
					nnst_reader_close(r);
					return 1;
				}
				g = grown;
				cap = (ng + n) * 2;
			}
			memcpy(g + ng, p, n * sizeof(*g));
			ng += n;
		} else if (type == NNST_CHUNK_META) {
			for (uint32_t o = 0; o + 4 <= len;) {
				uint32_t kl, vl;

				memcpy(&kl, p + o, 4);
				if (o + 4 + kl + 4 > len)
					break;
				memcpy(&vl, p + o + 4 + kl, 4);
				if (o + 8 + kl + vl > len)
					break;
				if (kl >= 13 && memcmp(p + o + 4, "nccl_profiler", 13) == 0)
					printf("meta %.*s=%.*s\n", (int)kl, p + o + 4, (int)vl,
					       p + o + 8 + kl);
				o += 8 + kl + vl;
			}
		}
	}
	for (size_t i = 0; i < ng; i++) {
		const struct nnst_gpu *x = &g[i];
		int64_t d, t0;

		if (x->type != NNST_GPU_COLL)
			continue;
		t0 = x->flags & NNST_GPUF_HOSTCLOCK ? nnst_clockmap_ns(&cm, x->start)
						    : (int64_t)x->start;
		d = x->flags & NNST_GPUF_HOSTCLOCK
			? nnst_clockmap_ns(&cm, x->end) - nnst_clockmap_ns(&cm, x->start)
			: (int64_t)(x->end - x->start);
		printf("coll name=%s count=%" PRIu64 " hash=0x%" PRIx64
		       " dtype=%s algo=%s proto=%s rank=%d nranks=%u root=%d seq=%u tid=%u "
		       "start_ns=%" PRId64 " dur_us=%" PRId64 " exec=%u hostclock=%d\n",
		       S(x->name), x->a, x->b, S(x->u[0]), S(x->u[1]), S(x->u[2]), (int)x->u[3],
		       x->u[4], (int)x->u[5], x->u[6], x->u[7], t0, d / 1000, x->stream,
		       x->flags & NNST_GPUF_HOSTCLOCK);
	}
	nnst_reader_close(r);
	nnst_clockmap_release(&cm);
	free(g);
	if (rc < 0)
		fprintf(stderr, "nccl_check: %s\n", err);
	return rc < 0;
}
