/*
 * ms_json.h - a small bounded JSON reader into a flat node array, for the
 * small JSON files of a MindSpore profiler directory (flops_summary_<dev>,
 * flops_scope_<dev>, dynamic_shape_info_<dev>) and the op_info cells of
 * framework_raw_<dev>.csv. Not for large traces (those use the streaming
 * Kineto tokenizer): every value is a node, strings are unescaped into one
 * buffer (\uXXXX and surrogate pairs to UTF-8).
 *
 * Bounds: nesting MSJ_DEPTH, MSJ_NODES_MAX nodes, input MSJ_BYTES_MAX.
 * Errors name "<name>:<line>: why" (NNS_EFORMAT) or NNS_ENOMEM.
 * Ownership: struct msj owns its nodes and strings; msj_release() frees
 * them. Node pointers stay valid until then.
 */
#ifndef NNS_IMPORTERS_MS_JSON_H
#define NNS_IMPORTERS_MS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"

#define MSJ_DEPTH 64
#define MSJ_NODES_MAX 8000000
#define MSJ_BYTES_MAX ((size_t)512 << 20)

enum msj_type { MSJ_NULL, MSJ_BOOL, MSJ_NUM, MSJ_STR, MSJ_ARR, MSJ_OBJ };

struct msj_node {
	int type;
	double num;	      /* MSJ_NUM value, MSJ_BOOL 0/1 */
	size_t str, slen;     /* MSJ_STR: offset/length in msj.s */
	size_t key, klen;     /* member key offset/length in msj.s (arrays: klen 0) */
	uint32_t first, next; /* first child, next sibling; 0 = none (0 is the root) */
	uint32_t count;	      /* number of children */
	uint32_t line;	      /* 1-based line where the value starts */
};

struct msj {
	VEC(struct msj_node) n;
	VEC(char) s; /* NUL-terminated strings and keys */
};

/* Parses buf[0..n) (one JSON value, whitespace around it allowed). name is
 * used in messages. On error j is left empty. */
int msj_parse(struct msj *j, const char *buf, size_t n, const char *name, struct nns_err *err);
void msj_release(struct msj *j);

static inline const struct msj_node *msj_root(const struct msj *j)
{
	return j->n.n ? &j->n.v[0] : NULL;
}
/* The first child / next sibling, or NULL. */
const struct msj_node *msj_first(const struct msj *j, const struct msj_node *x);
const struct msj_node *msj_next(const struct msj *j, const struct msj_node *x);
/* The member of object o named key, or NULL (also when o is not an object). */
const struct msj_node *msj_get(const struct msj *j, const struct msj_node *o, const char *key);
/* The string of a MSJ_STR node (NULL for other types) and a member's key ("" in arrays). */
const char *msj_str(const struct msj *j, const struct msj_node *x);
const char *msj_key(const struct msj *j, const struct msj_node *x);

#endif
