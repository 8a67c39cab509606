/*
 * assets.h - the UI files (web/ and the chart library) embedded in the
 * binary at build time by tools/embed.c into build/gen/assets.c.
 *
 * Each asset is kept as is and gzip-compressed (served compressed to
 * browsers that accept it). The table is static, read-only data.
 */
#ifndef NNS_SERVER_ASSETS_H
#define NNS_SERVER_ASSETS_H

#include <stddef.h>

struct asset {
	const char *path; /* "index.html", "views/overview.js", "vendor/echarts.min.js" */
	const char *mime;
	const unsigned char *data;
	size_t len;
	const unsigned char *gz; /* gzip of data, NULL when it would not be smaller */
	size_t gz_len;
	const char *etag; /* "\"<content hash>\"" */
};

extern const struct asset assets_table[];
extern const size_t assets_count;

/* The asset at path (no leading '/'), or NULL. */
const struct asset *asset_find(const char *path);

#endif
