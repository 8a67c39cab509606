/*
 * kineto_internal.h - private interface shared by the Kineto importer files.
 *
 * The importer is a streaming JSON parser that writes straight into a
 * struct model. Its pieces:
 *   kineto_io.c       input sources (memory, file, gzip) and progress output
 *   kineto_json.c     the tokenizer: strings, numbers, literals, skipping
 *   kineto_repr.c     Python-repr canonical text of nested values
 *   kineto_events.c   one traceEvents element -> model rows
 *   kineto_parse.c    the window (refill/restart) and top-level state machine
 *   kineto_top.c      top-level keys other than traceEvents
 *   kineto_pairs.c    B/E pairs -> complete events
 *   kineto_note.c     the legacy torch.profiler format; the note on odd input
 *   kineto_parallel.c splitting a large input between threads and joining
 *   kineto_ring.c     inflated gzip bytes kept for several readers (a ring)
 *   kineto_gzpar.c    parsing a large gzip input with several threads
 *   kineto.c          the public entry points (kineto.h)
 *
 * The parser reads its input through a window: a buffer holding the bytes
 * of the current "unit" (one traceEvents element, or one top-level key and
 * its value) and followed by KP_PAD zero bytes, so that scanning loops stop
 * at a NUL sentinel instead of testing the end on every byte. When a unit
 * runs past the end of the window, the parse functions return KP_NEED; the
 * window is refilled, keeping the bytes from the unit's start, and the unit
 * is parsed again from its start. Units therefore commit rows to the model
 * only once they are complete (interning strings on the way is harmless:
 * it is idempotent).
 */
#ifndef NNS_IMPORTERS_KINETO_INTERNAL_H
#define NNS_IMPORTERS_KINETO_INTERNAL_H

#include "common/buf.h"
#include "importers/kineto.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- limits ------------------------------------------------------------ */
#define KP_PAD 64			/* zero bytes after window data */
#define KP_WINDOW ((size_t)4 << 20)	/* default window size */
#define KP_UNIT_MAX ((size_t)256 << 20) /* largest single unit (one event) */
#define KP_STR_MAX ((size_t)64 << 20)	/* longest JSON string */
#define KP_NUM_MAX 64			/* longest number token */
#define KP_DEPTH_MAX 64			/* deepest nesting of [ and { */
#define KP_REPR_MAX ((size_t)4 << 20)	/* longest canonical repr text */
#define KP_SERIES_MAX 64		/* counter series per "C" event */
#define KP_DEVICES_MAX 4096		/* deviceProperties entries */
#define KP_PAR_MIN ((size_t)16 << 20)	/* smaller inputs parse serially */
#define KP_THREADS_MAX 8
#define KP_GZPAR_MIN ((int64_t)1 << 20)	   /* smaller .gz files (compressed) parse serially */
#define KP_GZ_CHUNK 8			   /* .gz chunks per thread: this many windows */
#define KP_WS_MAX ((size_t)16 << 20)	   /* longest run of whitespace outside strings */
#define KP_RATIO_FROM ((int64_t)256 << 20) /* .gz: JSON bytes before the ratio counts */
/* What the analysis of a loaded trace adds per event beyond the model's
 * rows (model_mem_bytes while parsing): the sort, the index and the
 * passes' per-event arrays. Measured with bench/model_bytes, peak RSS -
 * the 40-byte rows: 17-19 bytes per event on ~60-byte events without a
 * category (the index is 14 of them), 79 on ~70-byte cpu_op events (each
 * one a node of the operator tree, 48 bytes). The budget takes the worst
 * kind, as it cannot afford to count kinds while it parses. */
#define KP_AFTER_EVENT 80

/* ---- status of parse functions ------------------------------------------ */
enum {
	KP_OK = 0,
	KP_NEED = 1, /* ran past the window end: refill and restart the unit */
	KP_STOP = 2, /* reached the stop condition (see kparser.limit) */
	KP_ERR = -1  /* error recorded in the parser (err_code, err_off) */
};

/* ---- progress (kineto_io.c) --------------------------------------------- */
struct kprogress {
	int on;
	const char *name;
	int64_t total; /* bytes of raw (maybe compressed) input */
	_Atomic int64_t done;
	_Atomic int64_t last_ns;
	_Atomic int printed;
	_Atomic int64_t *ext;	   /* kineto_opts.done_bytes, may be NULL */
	const _Atomic int *cancel; /* kineto_opts.cancel, may be NULL */
};

void kprog_init(struct kprogress *pg, int on, const char *name, int64_t total);
void kprog_add(struct kprogress *pg, int64_t bytes);
void kprog_end(struct kprogress *pg);

/* Writes a byte count for messages ("512 MiB", "1.9 GiB", "730 KiB"). */
void kp_size(char *b, size_t n, int64_t v);

/* ---- input sources (kineto_io.c) ---------------------------------------- */
enum { KSRC_MEM, KSRC_FD, KSRC_GZ, KSRC_RING };
struct kgz;
struct kring;

struct ksrc {
	int type;
	const char *mem; /* KSRC_MEM, or the input of an in-memory gzip */
	size_t mem_len;
	int fd;		  /* KSRC_FD, or the input of a file gzip; -1 if none */
	int64_t pos;	  /* next raw byte to read */
	int64_t raw_size; /* raw input size (file size or mem_len) */
	int64_t consumed; /* raw bytes consumed so far (progress) */
	struct kgz *gz;
	const char *name; /* for error messages */
	/* KSRC_RING: the ring, this reader's slot in it, the offset it may
	 * not read past (speculative chunks), whether it reports the
	 * compressed bytes consumed (one reader does), and the lowest offset
	 * its parser may still re-read (refill sets it: the window start) */
	struct kring *ring;
	int slot, counts;
	int64_t horizon, hold;
};

/* Sources over memory or a file descriptor starting at raw offset `pos`.
 * The fd is borrowed (not closed by ksrc_close). */
void ksrc_mem(struct ksrc *s, const char *buf, size_t len, int64_t pos, const char *name);
void ksrc_fd(struct ksrc *s, int fd, int64_t size, int64_t pos, const char *name);
/* Turns a source positioned at offset 0 into a gzip decoder of it; with
 * `threaded`, a thread decompresses ahead of the parser. */
int ksrc_gz(struct ksrc *s, int threaded, struct nns_err *err);
/* Decompresses the next bytes of a gzip source (not threaded) into dst,
 * as ksrc_read would; *comp is the compressed bytes consumed after it. */
int kgz_fill(struct ksrc *s, char *dst, size_t cap, size_t *got, int64_t *comp,
	     struct nns_err *err);
/* Reads up to cap bytes; *got == 0 means end of input. Returns 0, NNS_EIO,
 * NNS_ENOMEM, or NNS_EFORMAT for corrupt or cut compressed data (err says
 * what, at which compressed byte, without the file name). A failing read
 * may still have delivered bytes (*got > 0): the ones before the damage. */
int ksrc_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err);
void ksrc_close(struct ksrc *s);
/* 1 if the bytes start with the gzip magic 1f 8b. */
int ksrc_is_gz(const unsigned char *b, size_t n);

/* ---- limits ------------------------------------------------------------------ */

/* The input limits of one load (kineto_opts), shared by the parsers of a
 * parallel parse: the memory budget holds for all of them together. */
struct klimits {
	int64_t max_input;	/* JSON bytes; INT64_MAX: none */
	int64_t max_ratio;	/* .gz JSON bytes per compressed byte; 0: none */
	int64_t ratio_from;	/* JSON bytes before the ratio counts (KP_RATIO_FROM) */
	int64_t max_memory;	/* the budget's floor; INT64_MAX: no budget */
	_Atomic int64_t json;	/* JSON bytes every parser pulled into its window */
	_Atomic int64_t cost;	/* projected bytes of every parser's model */
	_Atomic int64_t events; /* events of every parser's model */
};

void klimits_init(struct klimits *l, const struct kineto_opts *o);

/* ---- parser ---------------------------------------------------------------- */

/* Parse stages: where the next unit starts. */
enum kstage {
	KS_TOP = 0,  /* before the document: expect '{' or '[' */
	KS_TOP_KEY,  /* in the top-level object: expect a key or '}' */
	KS_TOP_NEXT, /* after a top-level value: expect ',' or '}' */
	KS_EV_FIRST, /* after traceEvents '[': expect an element or ']' */
	KS_EV_ELEM,  /* after ',' in traceEvents: expect an element */
	KS_EV_NEXT,  /* after an element: expect ',' or ']' */
	KS_TAIL,     /* after the document: only whitespace may follow */
	KS_DONE
};

enum kform { KF_UNKNOWN = 0, KF_OBJECT, KF_ARRAY };

/* Why kp_run() returned. */
enum kstop { KR_DONE = 0, KR_LIMIT, KR_ARRAY_END, KR_ERR };

/* A span of string bytes: in the window or in the arena, valid for the
 * current unit only. */
struct kstr {
	const char *p;
	size_t n;
};

/* A number token. */
struct knum {
	const char *p; /* token text */
	size_t n;
	int is_int; /* no fraction, no exponent */
	int neg;
	int ovf;	 /* integer part does not fit in uint64 */
	int exp;	 /* has an exponent */
	const char *dot; /* the '.', NULL if none */
	uint64_t mag;	 /* integer part magnitude */
};

/* A scalar value read where a scalar is expected. */
enum { KV_NULL = 0, KV_STR, KV_NUM, KV_BOOL, KV_OTHER };
struct kval {
	int type;
	int b;		 /* KV_BOOL */
	struct kstr s;	 /* KV_STR */
	struct knum num; /* KV_NUM */
};

/* Per-unit scratch memory: blocks that never move, reset per unit. */
struct karena {
	char **blk;
	size_t *blk_size;
	size_t nblk, cur, used;
};

/* B/E ("begin"/"end") events waiting to be paired (kineto_pairs.c). Their
 * texts live in the parser's own pool (kparser.be_str), not in the model,
 * so that joining chunks does not depend on how model_merge moves ids. */
struct kbe {
	int64_t ts;
	int64_t ext_id;
	uint32_t pid, tid, name; /* ids in kparser.be_str */
	uint8_t kind;
	char ph;
};

/* Small cache of (pid text, tid text) -> thread index. */
#define KP_TCACHE 4
#define KP_CATMEMO 8

/* A category text (exact bytes, < 24) with its kind and source code. */
struct kcatm {
	char s[24];
	uint8_t n, kind, code;
};
#define KP_TKEY 62
struct kthr {
	char key[KP_TKEY];
	uint8_t pl, tl;
	uint32_t idx;
};

struct kparser {
	struct model *m;
	const char *name; /* input name for messages */
	struct ksrc *src;
	struct kprogress *prog;

	/* window: buf[0..len) valid, buf[len..len+KP_PAD) zero */
	char *buf;
	size_t cap, len;
	int64_t base;	 /* input offset of buf[0] */
	const char *end; /* buf + len */
	const char *p;	 /* start of the next unit */
	int eof;

	int stage, form;
	int64_t limit;	  /* stop at an element start >= limit */
	int speculative;  /* stop at the end of the traceEvents array */
	int stop;	  /* enum kstop when kp_run returned KP_STOP */
	int64_t stop_off; /* offset where it stopped */
	int stop_stage;	  /* stage to resume with at stop_off */

	int64_t elements;    /* complete traceEvents elements */
	int64_t non_objects; /* of those, elements that are not objects */
	int seen_events;     /* a traceEvents array was entered */
	int64_t total_bytes; /* bytes pulled through the window */

	struct karena arena;
	struct buf tmp; /* repr builder */
	int tmp_over;

	struct klimits *lim; /* NULL: no limits (tests) */
	int64_t cost_pub;    /* what this parser added to lim->cost */
	int64_t json_pub;    /* and to lim->json */
	int64_t events_pub;  /* and to lim->events */
	int64_t cost_more;   /* cost of rows already moved out of m (kineto_gzpar.c) */
	int64_t events_more; /* and their events */
	int64_t ws_from;     /* start of the whitespace run the window ended in, -1 */
	int64_t pad;	     /* whitespace between units, in all */

	/* the source failed (corrupt or cut gzip, read error, ...) after
	 * delivering the bytes before the damage: reported once they are
	 * parsed, where the input ends */
	int src_code;
	char src_msg[256];

	struct kthr tcache[KP_TCACHE];
	unsigned tc_n, tc_next;
	struct kcatm catm[KP_CATMEMO]; /* categories seen (kcat_memo) */
	unsigned catm_n;

	VEC(struct kbe) be;
	struct strpool be_str; /* initialised on the first B/E event */

	int err_code; /* NNS_E* */
	int err_eof;  /* the error is the input ending early */
	int64_t err_off;
	char err_msg[320];
};

/* kineto_parse.c */
int kp_init(struct kparser *ps, struct model *m, struct ksrc *src, const char *name, size_t window,
	    struct kprogress *prog);
void kp_release(struct kparser *ps);
/* Restarts the parser at input offset `off` (the source must be re-aimed
 * there first), in stage `stage`. */
void kp_reset_at(struct kparser *ps, int64_t off, int stage);
/* Parses until the document ends (KR_DONE), a stop condition, or an error
 * (KR_ERR). */
int kp_run(struct kparser *ps);
/* Records an error with status code at p (an offset in the window);
 * returns KP_ERR, or KP_NEED for a format error at the end of the window
 * (more input may fix it). kp_fail() is the format error (NNS_EFORMAT). */
int kp_fail_code(struct kparser *ps, const char *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define kp_fail(ps, p, ...) kp_fail_code((ps), (p), NNS_EFORMAT, __VA_ARGS__)
/* The format error "<what>" at p; it never quotes the input (issue 20:
 * a message must not show a file's content), except to say that p is in
 * a run of whitespace longer than KP_WS_MAX. */
int kp_unexpected(struct kparser *ps, const char *p, const char *what);
int kp_nomem(struct kparser *ps, const char *p);
static inline int64_t kp_off(const struct kparser *ps, const char *p)
{
	return ps->base + (int64_t)(p - ps->buf);
}
/* Notes a malformed event that was skipped. */
void kp_skipped(struct kparser *ps, const char *at, const char *why);
/* Notes odd input that lost nothing (model_diag.notes). */
void kp_note(struct kparser *ps, int64_t off, const char *what);

/* kineto_json.c */
extern const unsigned char kj_ws_tab[256];
/* Skips whitespace; stops KP_WS_MAX bytes into a longer run, on a blank
 * that no caller accepts as a token (kp_unexpected names the limit). */
static inline const char *kj_ws(const char *p)
{
	const char *s = p;

	while (kj_ws_tab[(unsigned char)*p])
		p++;
	return (size_t)(p - s) > KP_WS_MAX ? s + KP_WS_MAX : p;
}
void *karena_alloc(struct karena *a, size_t n);
void karena_reset(struct karena *a);
void karena_free(struct karena *a);
#if defined(__SSE2__)
/* Bit i set where s[i], of the 16 bytes at s, is '"' or '\\'. */
static inline unsigned kj_quote_mask16(const char *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
}
#endif
/* The string at *pp (**pp == '"'); *pp after its closing quote. */
int kj_string_slow(struct kparser *ps, const char **pp, struct kstr *out);
static inline int kj_string(struct kparser *ps, const char **pp, struct kstr *out)
{
#if defined(__SSE2__)
	/* the common one: no escape, closed within 16 bytes (keys, kinds,
	 * short names), in one look; the window's KP_PAD bytes make the
	 * load safe */
	const char *s = *pp + 1;
	unsigned mask = kj_quote_mask16(s);

	if (mask) {
		unsigned i = (unsigned)__builtin_ctz(mask);
		if (s[i] == '"' && s + i < ps->end) {
			out->p = s;
			out->n = i;
			*pp = s + i + 1;
			return KP_OK;
		}
	}
#endif
	return kj_string_slow(ps, pp, out);
}
int kj_number(struct kparser *ps, const char **pp, struct knum *out);
int kj_literal(struct kparser *ps, const char **pp, struct kval *v, struct kstr *word);
int kj_scalar(struct kparser *ps, const char **pp, struct kval *v, int depth);
int kj_skip(struct kparser *ps, const char **pp, int depth);
/* Appends the Python repr of the value at *pp to ps->tmp (after resetting
 * it when `reset`); ps->tmp_over is set when it exceeds KP_REPR_MAX. */
int kj_repr(struct kparser *ps, const char **pp, int depth, int reset);
/* Appends to ps->tmp, setting ps->tmp_over past KP_REPR_MAX. */
void kj_tmp_put(struct kparser *ps, const char *s, size_t n);
/* Expects ':' after a key, skipping whitespace around it. */
int kj_colon_slow(struct kparser *ps, const char **pp);
static inline int kj_colon(struct kparser *ps, const char **pp)
{
	const char *p = *pp;

	if (p[0] == ':' && p[1] == ' ' && !kj_ws_tab[(unsigned char)p[2]]) {
		*pp = p + 2; /* the common ": " */
		return KP_OK;
	}
	if (p[0] == ':' && !kj_ws_tab[(unsigned char)p[1]]) {
		*pp = p + 1; /* and compact JSON's ":" */
		return KP_OK;
	}
	return kj_colon_slow(ps, pp);
}
/* After a member: ',' (returns 1 with *pp at the next key) or the closing
 * `close` char (returns 0, *pp after it); else an error. */
int kj_next_slow(struct kparser *ps, const char **pp, char close, const char *what, int *more);
static inline int kj_next(struct kparser *ps, const char **pp, char close, const char *what,
			  int *more)
{
	const char *p = *pp;

	if (p[0] == ',' && p[1] == ' ' && p[2] == '"') {
		*pp = p + 2; /* the common `, "` in one look */
		*more = 1;
		return KP_OK;
	}
	if (p[0] == ',') {
		const char *q = kj_ws(p + 1); /* `,"`, or a line break before it */
		if (*q == '"') {
			*pp = q;
			*more = 1;
			return KP_OK;
		}
	}
	if (p[0] == close) {
		*pp = p + 1;
		*more = 0;
		return KP_OK;
	}
	return kj_next_slow(ps, pp, close, what, more);
}
double kj_num_double(const struct knum *n);
/* Microseconds text -> int64 ns, exact for decimal text; 0 or -1. */
int kj_num_ns(const struct knum *n, int64_t *out);
int64_t kj_num_i64(const struct knum *n);
/* Scalar value conversions: 1 if the value gave a number. */
int kj_val_i64(const struct kval *v, int64_t *out);
int kj_val_f64(const struct kval *v, double *out);
static inline int kj_eq(struct kstr s, const char *lit, size_t n)
{
	return s.n == n && memcmp(s.p, lit, n) == 0;
}
#define KJ_EQ(s, lit) kj_eq((s), (lit), sizeof(lit) - 1)

/* kineto_events.c: parses one traceEvents element at *pp and commits it. */
int kev_element(struct kparser *ps, const char **pp);
/* kineto_cats.c: thread index of (pid, tid) texts; MODEL_NOIDX on allocation failure. */
uint32_t kev_thread(struct kparser *ps, struct kstr pid, struct kstr tid);
/* kineto_cats.c: a category's model kind (MK_OTHER if none), 1 when an
 * MK_OTHER category is one Kineto writes on purpose, an accelerator's own
 * category code (0 for CUDA's), a flow category's MF_* kind. */
int kcat_kind(struct kstr c);
int kcat_known_other(struct kstr c);
int kcat_src_code(struct kstr c);
int kcat_flow_kind(struct kstr c);
/* kcat_kind and kcat_src_code of c, remembered per parser for the first
 * KP_CATMEMO category texts (a trace has a handful). */
void kcat_memo(struct kparser *ps, struct kstr c, int *kind, int *code);

/* kineto_note.c: the kind of an event without "cat" by its legacy
 * torch.profiler pid ("CPU functions": MK_CPU_OP, "CUDA functions":
 * MK_KERNEL with *device from a numeric tid), else MK_OTHER; and the note
 * (m->diag.note) on a finalized model read from `name`: the legacy format
 * and what it lacks, or events none of which an analysis can use. */
int kleg_kind(struct kstr pid, struct kstr tid, int64_t *device);
void kleg_note(struct model *m, const char *name);

/* kineto_top.c: the value of a top-level key other than traceEvents. */
int ktop_value(struct kparser *ps, const char **pp, struct kstr key);

/* kineto_pairs.c: queue one B/E event; move a later chunk's queue to the
 * end of dst's; pair them all into model events (once, at the end). */
int kbe_push(struct kparser *ps, const struct kbe *b, struct kstr pid, struct kstr tid,
	     struct kstr name);
int kbe_adopt(struct kparser *dst, struct kparser *src);
int kbe_pair(struct kparser *ps);
void kbe_release(struct kparser *ps);

/* kineto_parallel.c: parses a plain (uncompressed) input of `size` bytes
 * with `nthreads` threads; the result lands in ps (already set up on a
 * source at offset 0). Returns the enum kstop of the final parser state. */
int kpar_run(struct kparser *ps, const struct ksrc *proto, int64_t size, int nthreads);

/* kineto_parallel.c, also used by kineto_gzpar.c: the first plausible
 * element start at or after `from` (searching at most `max` bytes, before
 * `size`), -1 if none; buf holds KPAR_PROBE bytes. Accepting chunk w
 * (parser wps, its model wps->m, kp_run's result wrc) after ps stopped
 * right at its start: its rows move into ps->m. Restarting ps at `off`. */
#define KPAR_PROBE ((size_t)64 << 10)
int64_t kpar_find_sync(const struct ksrc *proto, int64_t from, int64_t size, int64_t max,
		       char *buf);
int kpar_adopt(struct kparser *ps, struct kparser *wps, int wrc);
/* Moves src's rows into dst (model_merge) with the whole-file metadata of
 * the earlier one (dst) winning. */
int kpar_merge(struct model *dst, struct model *src);
void kpar_reposition(struct kparser *ps, int64_t off, int stage, int64_t limit);

/* kineto_ring.c: the inflated bytes of gzip source gz, decompressed by a
 * thread into blocks that are kept while a reader may still read them
 * (ksrc.hold), up to about `keep` bytes ahead of the lowest reader (more
 * while a reader waits). Readers are ksrc of type KSRC_RING, each with
 * its own slot (< KRING_SLOTS; slot 0 holds offset 0 from the start); ksrc_read on one waits for
 * the bytes. kring_stop makes waiting and later reads fail. */
#define KRING_SLOTS (2 * KP_THREADS_MAX)
int kring_open(struct kring **out, struct ksrc *gz, int64_t keep);
void kring_reader(struct kring *r, struct ksrc *s, int slot, int64_t pos, const char *name);
/* The slot reads nothing more for now (its bytes may go). */
void kring_idle(struct kring *r, int slot);
/* 1 and the inflated size once the stream ended (or failed) at or before
 * `off`; else 0. Waits for the bytes at off. */
int kring_ended_before(struct kring *r, int64_t off);
int kring_read(struct ksrc *s, char *dst, size_t cap, size_t *got, struct nns_err *err);
void kring_stop(struct kring *r);
void kring_close(struct kring *r);

/* kineto_gzpar.c: parses a gzip source (ps->src, KSRC_GZ, not threaded)
 * with `nthreads` threads in chunks of `chunk` inflated bytes; the result
 * lands in ps, as kp_run's. */
int kgzpar_run(struct kparser *ps, int nthreads, int64_t chunk);

/* kineto.c: the body of load_file and load_buffer, also used by the tests
 * and the fuzzer: `window` 0 picks the default window size, `par_min` 0 the
 * default size (KP_PAR_MIN) from which a plain input is parsed in parallel. */
int kineto_parse_source(struct ksrc *src, int64_t size, int plain, const char *name,
			struct model *m, const struct kineto_opts *o, size_t window,
			int64_t par_min, struct kprogress *prog, struct nns_err *err);

#endif
