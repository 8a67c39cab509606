/*
 * cupti_check.c - prints the GPU records of a .nnst file as key=value
 * lines for tests/e2e/cupti_inject.sh (owner: the collector). Built from
 * the format reader's objects (no analyzer):
 *
 *   cupti_check FILE
 *   ok=0|1 truncated=0|1 gpu=N gpu.<TYPE>=N hostclock=N (records flagged)
 *   kernel.<name>=N grid=x,y,z block=x,y,z regs=R ssmem=S dsmem=D device=D
 *     stream=S (launch parameters of its first record; "mixed" appended
 *     when later ones differ)
 *   kernel_linked=N      kernels whose correlation id has a RUNTIME record
 *   runtime.<name>=N     runtime.tid.<tid>=N   runtime.pid=<pids>
 *   memcpy.bytes=SUM memcpy.kinds=<copy>/<src>/<dst> (distinct)
 *   device.<i>=<name>|<a>|<b>|<u0>,...,<u7>
 *   ordered=1            every record has start <= end
 *   gpuclock=N gpuclock_ordered=1 (both clocks non-decreasing)
 *   meta.<key>=<value>
 * Exit status 0 when the file opens, 1 otherwise.
 *
 *   cupti_check --replay DUMP...
 * decodes CUPTI buffer dumps (NNSCOPE_CUPTI_DUMP) through the collector's
 * own decoder (nns_cupti_replay) and prints the same gpu/kernel/runtime/
 * memcpy lines (no device records, clock points or META: dumps hold only
 * CUPTI's buffers). With NNSCOPE_CUPTI_LIB, that library walks the
 * records and names the API calls.
 */
#include "collector/collector.h"
#include "collector/cupti_abi.h"
#include "format/nnst.h"
#include "format/nnst_writer.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 65536

static char *str[MAXN];
static struct nnst_gpu *g;
static size_t ng, capg;
static struct nnst_gpuclock clk[4096];
static size_t nclk;

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const char *name(uint32_t id)
{
	return id < MAXN && str[id] ? str[id] : "?";
}

static const char *tname(int t)
{
	static const char *n[] = {"?",	  "KERNEL", "MEMCPY", "MEMSET", "RUNTIME", "DRIVER",
				  "SYNC", "MEMORY", "DEVICE", "COLL",	"EXTCORR"};

	return t >= 1 && t <= 10 ? n[t] : "?";
}

static int has_runtime(uint32_t corr)
{
	for (size_t i = 0; i < ng; i++)
		if (g[i].type == NNST_GPU_RUNTIME && g[i].corr == corr)
			return 1;
	return 0;
}

/* distinct values printed once: a tiny set */
static int seen(uint64_t *set, size_t *n, size_t max, uint64_t v)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == v)
			return 1;
	if (*n < max)
		set[(*n)++] = v;
	return 0;
}

static void strings(const uint8_t *p, uint32_t len)
{
	for (uint32_t o = 0; o + 8 <= len;) {
		uint32_t id = u32(p + o), l = u32(p + o + 4);

		if (id < MAXN) {
			free(str[id]);
			str[id] = strndup((const char *)p + o + 8, l);
		}
		o += 8 + l;
	}
}

static void append(void *arg, const struct nnst_gpu *x, size_t k)
{
	(void)arg;
	if (ng + k > capg) {
		struct nnst_gpu *v = realloc(g, (ng + k) * 2 * sizeof(*g));

		if (!v) {
			fprintf(stderr, "cupti_check: out of memory\n");
			exit(1);
		}
		g = v;
		capg = (ng + k) * 2;
	}
	memcpy(g + ng, x, k * sizeof(*g));
	ng += k;
}

static void summary(void);

static int replay(int n, char **files)
{
	const char *lib = getenv("NNSCOPE_CUPTI_LIB");
	nns_cupti_next_fn next = NULL;
	struct nns_cupti_conv c;
	struct nns_err err;
	struct nnst_buf b;
	uint32_t from = 0;
	void *h, *sym;
	int more;

	if (nns_cupti_conv_init(&c) || nnst_buf_init(&b, 1u << 20))
		return 1;
	/* a libcupti (NNSCOPE_CUPTI_LIB) walks and names API calls */
	if (lib && (h = dlopen(lib, RTLD_NOW))) {
		if ((sym = dlsym(h, "cuptiActivityGetNextRecord")))
			memcpy(&next, &sym, sizeof(sym));
		if ((sym = dlsym(h, "cuptiGetCallbackName")))
			memcpy(&c.cbname, &sym, sizeof(sym));
	}
	for (int i = 0; i < n; i++)
		if (nns_cupti_replay(files[i], &c, next, append, NULL, &err)) {
			fprintf(stderr, "cupti_check: %s\n", err.msg);
			return 1;
		}
	do {
		b.n = 0;
		more = nns_names_serialize(&from, &b);
		strings(b.p, (uint32_t)b.n);
	} while (more);
	nnst_buf_release(&b);
	nns_cupti_conv_release(&c);
	printf("ok=1\ntruncated=0\ngpu=%zu\n", ng);
	summary();
	return 0;
}

int main(int argc, char **argv)
{
	struct nnst_reader *r;
	char err[256];
	uint32_t type, len;
	const uint8_t *p;
	int rc;

	if (argc >= 3 && strcmp(argv[1], "--replay") == 0)
		return replay(argc - 2, argv + 2);
	if (argc != 2) {
		fprintf(stderr, "usage: cupti_check FILE | --replay DUMP...\n");
		return 2;
	}
	if (nnst_reader_open(&r, argv[1], err, sizeof(err))) {
		fprintf(stderr, "cupti_check: %s\n", err);
		return 1;
	}
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1) {
		if (type == NNST_CHUNK_STRINGS) {
			strings(p, len);
		} else if (type == NNST_CHUNK_GPU) {
			size_t k = len / sizeof(struct nnst_gpu);
			struct nnst_gpu *tmp = malloc(k * sizeof(*tmp) + 1);

			memcpy(tmp, p, k * sizeof(*tmp));
			append(NULL, tmp, k);
			free(tmp);
		} else if (type == NNST_CHUNK_GPUCLOCK) {
			size_t k = len / sizeof(struct nnst_gpuclock);

			for (size_t i = 0; i < k && nclk < 4096; i++)
				memcpy(&clk[nclk++], p + i * sizeof(struct nnst_gpuclock),
				       sizeof(struct nnst_gpuclock));
		} else if (type == NNST_CHUNK_META) {
			for (uint32_t o = 0; o + 4 <= len;) {
				uint32_t kl = u32(p + o), vl = u32(p + o + 4 + kl);

				printf("meta.%.*s=%.*s\n", (int)kl, (const char *)p + o + 4,
				       (int)vl, (const char *)p + o + 8 + kl);
				o += 8 + kl + vl;
			}
		}
	}
	printf("ok=%d\ntruncated=%d\ngpu=%zu\n", rc == 0, rc != 0, ng);
	summary();
	nnst_reader_close(r);
	return 0;
}

static void summary(void)
{
	size_t per_type[11] = {0}, hostclock = 0, linked = 0, ordered = 1, cok = 1;
	uint64_t bytes = 0, set[256], kinds[64];
	size_t nset = 0, nkinds = 0;

	for (size_t i = 0; i < ng; i++) {
		const struct nnst_gpu *x = &g[i];

		per_type[x->type <= 10 ? x->type : 0]++;
		hostclock += (x->flags & NNST_GPUF_HOSTCLOCK) != 0;
		if (x->start > x->end)
			ordered = 0;
		if (x->type == NNST_GPU_KERNEL) {
			linked += has_runtime(x->corr);
			if (!seen(set, &nset, 256, ((uint64_t)1 << 40) | x->name)) {
				size_t cnt = 0;
				int mixed = 0;

				for (size_t j = i; j < ng; j++) {
					if (g[j].type != NNST_GPU_KERNEL || g[j].name != x->name)
						continue;
					cnt++;
					mixed |= memcmp(g[j].u, x->u, sizeof(x->u)) ||
						 g[j].a != x->a || g[j].device != x->device ||
						 g[j].stream != x->stream;
				}
				printf(
				    "kernel.%s=%zu grid=%u,%u,%u block=%u,%u,%u regs=%u ssmem=%u "
				    "dsmem=%llu device=%d stream=%u%s\n",
				    name(x->name), cnt, x->u[0], x->u[1], x->u[2], x->u[3], x->u[4],
				    x->u[5], x->u[6], x->u[7], (unsigned long long)x->a, x->device,
				    x->stream, mixed ? " mixed" : "");
			}
		} else if (x->type == NNST_GPU_RUNTIME) {
			if (!seen(set, &nset, 256, ((uint64_t)2 << 40) | x->name)) {
				size_t cnt = 0;

				for (size_t j = i; j < ng; j++)
					cnt +=
					    g[j].type == NNST_GPU_RUNTIME && g[j].name == x->name;
				printf("runtime.%s=%zu\n", name(x->name), cnt);
			}
			if (!seen(set, &nset, 256, ((uint64_t)3 << 40) | x->a)) {
				size_t cnt = 0;

				for (size_t j = i; j < ng; j++)
					cnt += g[j].type == NNST_GPU_RUNTIME && g[j].a == x->a;
				printf("runtime.tid.%llu=%zu\n", (unsigned long long)x->a, cnt);
			}
			if (!seen(set, &nset, 256, ((uint64_t)4 << 40) | x->b))
				printf("runtime.pid=%llu\n", (unsigned long long)x->b);
		} else if (x->type == NNST_GPU_MEMCPY) {
			bytes += x->a;
			seen(kinds, &nkinds, 64, (uint64_t)x->u[0] << 32 | x->u[1] << 16 | x->u[2]);
		} else if (x->type == NNST_GPU_DEVICE) {
			printf("device.%d=%s|%llu|%llu|%u,%u,%u,%u,%u,%u,%u,%u\n", x->device,
			       name(x->name), (unsigned long long)x->a, (unsigned long long)x->b,
			       x->u[0], x->u[1], x->u[2], x->u[3], x->u[4], x->u[5], x->u[6],
			       x->u[7]);
		}
	}
	for (int t = 1; t <= 10; t++)
		if (per_type[t])
			printf("gpu.%s=%zu\n", tname(t), per_type[t]);
	printf("hostclock=%zu\nkernel_linked=%zu\nordered=%zu\nmemcpy.bytes=%llu\n", hostclock,
	       linked, ordered, (unsigned long long)bytes);
	for (size_t i = 0; i < nkinds; i++)
		printf("memcpy.kinds=%llu/%llu/%llu\n", (unsigned long long)(kinds[i] >> 32),
		       (unsigned long long)((kinds[i] >> 16) & 0xffff),
		       (unsigned long long)(kinds[i] & 0xffff));
	for (size_t i = 1; i < nclk; i++)
		if (clk[i].gpu_ns < clk[i - 1].gpu_ns || clk[i].raw < clk[i - 1].raw)
			cok = 0;
	printf("gpuclock=%zu\ngpuclock_ordered=%zu\n", nclk, cok);
}
