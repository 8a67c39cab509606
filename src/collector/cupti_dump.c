/*
 * cupti_dump.c - NNSCOPE_CUPTI_DUMP: each completed CUPTI buffer saved to a
 * file (format in cupti_abi.h), and the replay that decodes such a file
 * through the same conversion as a live buffer (cupti_records.c), for
 * tests with buffers recorded on a GPU machine.
 * Kernel names are pointers into the recording process, so the dump keeps
 * them beside the bytes and the replay points the records at copies;
 * malformed files give NNS_EFORMAT naming the file, never a crash.
 */
#include "collector/cupti_abi.h"
#include "collector/collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t u32at(const uint8_t *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r + off, 4);
	return v;
}

static const char MAGIC[10] = "NNSCUPTI1\n";

int nns_cupti_dump(const char *path, uint32_t version, uint32_t flags, const uint8_t *buf,
		   size_t valid, nns_cupti_next_fn next)
{
	FILE *f = fopen(path, "wb");
	uint64_t v64 = valid;
	uint32_t count = 0;
	void *rec = NULL;
	long count_at;
	int ok;

	if (!f)
		return NNS_EIO;
	if (!next)
		next = nns_cupti_next13;
	ok = fwrite(MAGIC, sizeof(MAGIC), 1, f) == 1 && fwrite(&version, 4, 1, f) == 1 &&
	     fwrite(&flags, 4, 1, f) == 1 && fwrite(&v64, 8, 1, f) == 1 &&
	     fwrite(buf, 1, valid, f) == valid;
	count_at = ftell(f);
	ok = ok && fwrite(&count, 4, 1, f) == 1;
	while (ok && next((uint8_t *)buf, valid, &rec) == NNS_CUPTI_SUCCESS) {
		const char *name;
		uint32_t off, len;

		if (u32at(rec, 0) != NNS_CK_CONCURRENT_KERNEL)
			continue;
		memcpy(&name, (uint8_t *)rec + NNS_KO_NAME, sizeof(name));
		off = (uint32_t)((uint8_t *)rec - buf);
		len = name ? (uint32_t)strlen(name) : 0;
		ok = fwrite(&off, 4, 1, f) == 1 && fwrite(&len, 4, 1, f) == 1 &&
		     fwrite(name ? name : "", 1, len, f) == len;
		count++;
	}
	ok = ok && fseek(f, count_at, SEEK_SET) == 0 && fwrite(&count, 4, 1, f) == 1;
	return (fclose(f) == 0 && ok) ? NNS_OK : NNS_EIO;
}

static int rd(FILE *f, void *dst, size_t n)
{
	return fread(dst, 1, n, f) == n;
}

int nns_cupti_replay(const char *path, struct nns_cupti_conv *c, nns_cupti_next_fn next,
		     nns_gpu_sink sink, void *arg, struct nns_err *err)
{
	FILE *f = fopen(path, "rb");
	char magic[sizeof(MAGIC)];
	uint32_t version, flags, count;
	uint64_t valid;
	uint8_t *buf = NULL;
	char **names = NULL;
	int rc = NNS_OK;

	if (!f)
		return nns_err_set(err, NNS_EIO, "%s: %s", path, strerror(errno));
	if (!rd(f, magic, sizeof(magic)) || memcmp(magic, MAGIC, sizeof(MAGIC)) ||
	    !rd(f, &version, 4) || !rd(f, &flags, 4) || !rd(f, &valid, 8) || valid > (1u << 30)) {
		rc =
		    nns_err_set(err, NNS_EFORMAT, "%s: not a CUPTI buffer dump (bad header)", path);
		goto out;
	}
	/* 8-aligned, as CUPTI's buffers */
	if (!(buf = aligned_alloc(8, (valid + 8) & ~(uint64_t)7))) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (!rd(f, buf, valid) || !rd(f, &count, 4) || count > valid / NNS_K_MIN_SIZE + 1) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s: truncated CUPTI buffer dump", path);
		goto out;
	}
	/* kernels without a saved name must not keep a dead pointer */
	for (void *rec = NULL;
	     (next ? next : nns_cupti_next13)(buf, valid, &rec) == NNS_CUPTI_SUCCESS;)
		if (u32at(rec, 0) == NNS_CK_CONCURRENT_KERNEL)
			memset((uint8_t *)rec + NNS_KO_NAME, 0, sizeof(char *));
	if (count && !(names = calloc(count, sizeof(*names)))) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint32_t off, len;

		if (!rd(f, &off, 4) || !rd(f, &len, 4) || len > (1u << 20) ||
		    (uint64_t)off + NNS_K_MIN_SIZE > valid || !(names[i] = malloc(len + 1)) ||
		    !rd(f, names[i], len)) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "%s: kernel name %u of %u truncated or bad", path, i,
					 count);
			goto out;
		}
		names[i][len] = '\0';
		if (u32at(buf + off, 0) != NNS_CK_CONCURRENT_KERNEL) {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "%s: kernel name %u points at byte %u, not a kernel", path,
					 i, off);
			goto out;
		}
		memcpy(buf + off + NNS_KO_NAME, &names[i], sizeof(names[i]));
	}
	c->flags = (uint8_t)flags;
	nns_cupti_decode(c, buf, valid, next, sink, arg);
out:
	for (uint32_t i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
	free(buf);
	fclose(f);
	return rc;
}
