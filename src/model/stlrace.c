/* Data-race evidence in libstdc++ containers: two threads inside the same container object. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stlrace.h"
#include "banned.h"

#define STL_FRAMES 24	/* frames of a thread looked at, from its innermost */

enum { FAM_HASH, FAM_VECTOR, FAM_TREE, FAM_DEQUE, FAM_LIST, FAM_FLIST };

static const char *const family_names[] = {
	"unordered container (std::_Hashtable)", "std::vector", "ordered container (std::_Rb_tree)",
	"std::deque", "std::list", "std::forward_list",
};

/* class templates, each followed by '<' in a demangled name */
static const struct {
	const char *cls;
	int family;
} classes[] = {
	{ "std::_Hashtable", FAM_HASH },
	{ "std::__detail::_Map_base", FAM_HASH },
	{ "std::__detail::_Hashtable_alloc", FAM_HASH },
	{ "std::__detail::_Insert_base", FAM_HASH },
	{ "std::__detail::_Insert", FAM_HASH },
	{ "std::__detail::_Rehash_base", FAM_HASH },
	{ "std::unordered_map", FAM_HASH },
	{ "std::unordered_set", FAM_HASH },
	{ "std::unordered_multimap", FAM_HASH },
	{ "std::unordered_multiset", FAM_HASH },
	{ "std::vector", FAM_VECTOR },
	{ "std::_Vector_base", FAM_VECTOR },
	{ "std::_Rb_tree", FAM_TREE },
	{ "std::map", FAM_TREE },
	{ "std::set", FAM_TREE },
	{ "std::multimap", FAM_TREE },
	{ "std::multiset", FAM_TREE },
	{ "std::deque", FAM_DEQUE },
	{ "std::_Deque_base", FAM_DEQUE },
	{ "std::__cxx11::list", FAM_LIST },
	{ "std::__cxx11::_List_base", FAM_LIST },
	{ "std::list", FAM_LIST },
	{ "std::_List_base", FAM_LIST },
	{ "std::forward_list", FAM_FLIST },
	{ "std::_Fwd_list_base", FAM_FLIST },
};

/* methods that change a container (substrings of the method's name) */
static const char *const writers[] = {
	"insert", "emplace", "erase", "clear", "rehash", "_M_deallocate", "_M_allocate_node",
	"_M_create_node", "_M_drop_node", "_M_destroy", "push_", "pop_", "resize", "reserve",
	"_M_realloc", "assign", "operator=", "swap", "_M_rebalance", "_M_fill", "_M_default_append",
	"splice", "remove", "sort", "merge", "unique", "_M_reserve_map", "_M_new_elements",
	"shrink_to_fit", "_M_extract", "_M_reinsert", "_M_move_assign", "_M_assign",
	"_M_reallocate_map", "_M_push", "_M_pop", NULL,
};

/* the '>' closing the '<' at s[0], or NULL */
static const char *closing(const char *s)
{
	int depth = 0;

	for (; *s; s++)
		if (*s == '<')
			depth++;
		else if (*s == '>' && --depth == 0)
			return s;
	return NULL;
}

/* 1 when fn[0..p) is outside every <...> and (...) */
static int top_level(const char *fn, const char *p)
{
	int angle = 0, paren = 0;

	for (; fn < p; fn++)
		if (*fn == '<')
			angle++;
		else if (*fn == '>')
			angle--;
		else if (*fn == '(')
			paren++;
		else if (*fn == ')')
			paren--;
	return angle == 0 && paren == 0;
}

/* the method's name after "::" (m), its length */
static size_t method_len(const char *m)
{
	if (strncmp(m, "operator()", 10) == 0)
		return 10;
	if (strncmp(m, "operator[]", 10) == 0)
		return 10;
	if (strncmp(m, "operator", 8) == 0)
		return 8 + strcspn(m + 8, "(");
	return strcspn(m, "(<");
}

int prov_stl_family(const char *fn, struct prov_buf *name)
{
	size_t i, len, ml;
	const char *p, *end;

	if (!fn)
		return -1;
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		len = strlen(classes[i].cls);
		for (p = fn; (p = strstr(p, classes[i].cls)) != NULL; p += len) {
			if ((p != fn && p[-1] != ' ') || p[len] != '<' || !top_level(fn, p))
				continue;
			end = closing(p + len);
			if (!end || strncmp(end + 1, "::", 2) != 0 || !(ml = method_len(end + 3)))
				continue;
			if (name)
				prov_buf_printf(name, "%s<…>::%.*s", classes[i].cls, (int)ml, end + 3);
			return classes[i].family;
		}
	}
	return -1;
}

/* a frame's `this`: 0 when unknown or NULL */
static uint64_t this_of(const struct prov_frame *f)
{
	size_t k;

	if (!f->has_vars)
		return 0;
	for (k = 0; k < f->nargs; k++)
		if (f->args[k].name && strcmp(f->args[k].name, "this") == 0 && f->args[k].value &&
		    strncmp(f->args[k].value, "0x", 2) == 0)
			return strtoull(f->args[k].value + 2, NULL, 16);
	return 0;
}

/* the method of a frame's name changes the container */
static int writes(const char *fn, int family)
{
	struct prov_buf name = PROV_BUF_INIT;
	const char *m;
	size_t i;
	int w = 0;

	if (prov_stl_family(fn, &name) < 0)
		goto cleanup;
	m = strstr(name.buf, ">::");
	m = m ? m + 3 : name.buf;
	/* a map's operator[] inserts a missing key; a vector's does not */
	if ((family == FAM_HASH || family == FAM_TREE) && strcmp(m, "operator[]") == 0)
		w = 1;
	for (i = 0; !w && writers[i]; i++)
		if (strstr(m, writers[i]))
			w = 1;
cleanup:
	prov_buf_release(&name);
	return w;
}

struct stl_hit {
	int frame;	/* a frame of the thread on the object, -1 when none */
	int writer;	/* the frame of a writing method on it, -1 when none */
};

/* thread u's frames in `family` code on `obj` */
static struct stl_hit thread_on(const struct prov_thread *u, int family, uint64_t obj)
{
	struct stl_hit h = { -1, -1 };
	size_t j;

	for (j = 0; j < u->nframes && j < STL_FRAMES; j++) {
		const struct prov_frame *g = &u->frames[j];

		if (prov_stl_family(g->function, NULL) != family || this_of(g) != obj)
			continue;
		if (h.frame < 0)
			h.frame = (int)j;
		if (h.writer < 0 && writes(g->function, family))
			h.writer = (int)j;
	}
	return h;
}

static void say_frame(struct prov_buf *b, const struct prov_thread *u, int j)
{
	const struct prov_frame *g = &u->frames[j];

	prov_buf_puts(b, "thread ");
	if (u->has_tid)
		prov_buf_printf(b, "%" PRId64, u->tid);
	else
		prov_buf_puts(b, "?");
	prov_buf_printf(b, " in frame #%d ", g->index);
	if (prov_stl_family(g->function, b) < 0)
		prov_buf_puts(b, "??");
}

void prov_stl_race(const struct prov_crash *c, const struct prov_thread *t,
		   struct prov_buf *b, size_t *n)
{
	struct stl_hit mine, other;
	struct prov_buf others = PROV_BUF_INIT;
	size_t i, u, nothers;
	uint64_t obj = 0;
	int family = -1, writers_seen;

	if (!t)
		return;
	for (i = prov_thread_crash_frame(t); i < t->nframes && i < STL_FRAMES; i++) {
		family = prov_stl_family(t->frames[i].function, NULL);
		if (family < 0 || !(obj = this_of(&t->frames[i])))
			continue;
		mine = thread_on(t, family, obj);
		writers_seen = mine.writer >= 0;
		nothers = 0;
		prov_buf_reset(&others);
		for (u = 0; u < c->nthreads; u++) {
			const struct prov_thread *o = &c->threads[u];

			if (o == t)
				continue;
			other = thread_on(o, family, obj);
			if (other.frame < 0 || (mine.writer < 0 && other.writer < 0))
				continue;
			writers_seen += other.writer >= 0;
			prov_buf_puts(&others, nothers++ ? ", " : "");
			say_frame(&others, o, other.writer >= 0 ? other.writer : other.frame);
		}
		if (!nothers)
			continue;
		prov_buf_printf(b, "%sthe crashing ", (*n)++ ? "; " : "");
		say_frame(b, t, mine.writer >= 0 ? mine.writer : mine.frame);
		prov_buf_printf(b, " and %s %s inside the same %s object 0x%" PRIx64
				" (`this`) at the time of the crash, %d of the %zu in a method that "
				"changes it: a container written while another thread uses it (a write "
				"under a shared/read lock, or no lock)",
				others.buf, nothers > 1 ? "are all" : "are both", family_names[family],
				obj, writers_seen, nothers + 1);
		break;
	}
	prov_buf_release(&others);
}

/* ---- a hash table's fields from core memory ---- */

#define STL_WALK_MAX 1000000	/* nodes followed at most */

static int canonical(uint64_t a)
{
	uint64_t top = a >> 47;

	return top == 0 || top == 0x1ffff;
}

/* a pointer field's problem ("0x… is not 8-byte aligned"), or 0 when none */
static int bad_pointer(uint64_t p, prov_stl_read_fn mem, void *arg, int partial, struct prov_buf *why)
{
	uint64_t w;

	if (p % 8)
		prov_buf_printf(why, "0x%" PRIx64 " is not 8-byte aligned", p);
	else if (!canonical(p))
		prov_buf_printf(why, "0x%" PRIx64 " is not a canonical address", p);
	else if (!partial && mem(arg, p, &w, sizeof(w)) != 0)
		prov_buf_printf(why, "0x%" PRIx64 " is not readable memory in the core", p);
	else
		return 0;
	return 1;
}

/* a std::_Hashtable frame with the standard hash, equality and allocator */
static int plain_hashtable(const char *fn)
{
	struct prov_buf name = PROV_BUF_INIT;
	int ok;

	ok = prov_stl_family(fn, &name) == FAM_HASH && name.buf &&
	     strncmp(name.buf, "std::_Hashtable<", 16) == 0 && strstr(fn, "std::hash<") &&
	     strstr(fn, "std::equal_to<") && strstr(fn, "std::allocator<") &&
	     strstr(fn, "std::__detail::_Prime_rehash_policy");
	prov_buf_release(&name);
	return ok;
}

/*
 * counts: whether the element count may be checked against the list (not
 * while the crashing thread itself is changing the table: an insert links
 * the node before it counts it, a rehash relinks every node); partial: a
 * truncated core, where memory that is not there may have been.
 */
static void inspect_hashtable(struct prov_buf *b, const struct prov_frame *f, uint64_t obj,
			      int counts, int partial, prov_stl_read_fn mem, void *arg)
{
	uint64_t h[4], node, next, steps = 0;
	struct prov_buf why = PROV_BUF_INIT;
	const char *fields = "_M_buckets";

	if (mem(arg, obj, h, sizeof(h)) != 0)
		goto cleanup;
	prov_buf_printf(b, "in frame #%d the hash table at 0x%" PRIx64 " (`this`) has ", f->index, obj);
	if (bad_pointer(h[0], mem, arg, partial, &why))
		goto said;
	fields = "_M_bucket_count";
	if (h[1] == 0) {
		prov_buf_puts(&why, "0");
		goto said;
	}
	fields = "_M_before_begin._M_nxt";
	if (counts && h[2] == 0 && h[3] != 0) {
		prov_buf_printf(&why, "NULL (an empty list) with _M_element_count %" PRIu64, h[3]);
		goto said;
	}
	for (node = h[2]; node; node = next, steps++) {
		if (bad_pointer(node, mem, arg, partial, &why)) {
			if (steps)
				fields = "a node's _M_nxt";
			prov_buf_printf(&why, " (node %" PRIu64 " of the list; _M_element_count %" PRIu64 ")",
					steps + 1, h[3]);
			goto said;
		}
		if (steps >= STL_WALK_MAX)
			goto none;
		if (counts && steps >= h[3]) {
			fields = "_M_before_begin's node list";
			prov_buf_printf(&why, "more than _M_element_count %" PRIu64 " nodes", h[3]);
			goto said;
		}
		if (mem(arg, node, &next, sizeof(next)) != 0)
			goto none;
	}
	if (counts && steps < h[3]) {
		fields = "_M_before_begin's node list";
		prov_buf_printf(&why, "%" PRIu64 " nodes where _M_element_count is %" PRIu64, steps, h[3]);
		goto said;
	}
none:
	prov_buf_reset(b);
	goto cleanup;
said:
	prov_buf_printf(b, "%s %s (_M_buckets 0x%" PRIx64 ", _M_bucket_count %" PRIu64
			", _M_element_count %" PRIu64 ")", fields, why.buf, h[0], h[1], h[3]);
cleanup:
	prov_buf_release(&why);
}

/* ---- a vector's, a tree's and a list's fields ---- */

/* the size of a vector's element type when it is a fundamental type or a pointer, else 0 */
static uint64_t element_size(const char *fn)
{
	static const struct {
		const char *type;
		uint64_t size;
	} sizes[] = {
		{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "int", 4 }, { "unsigned int", 4 },
		{ "float", 4 }, { "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 }, { "double", 8 },
	};
	const char *t = strstr(fn, "std::vector<"), *end;
	size_t i, len;

	if (t && (t == fn || t[-1] == ' '))
		t += 12;
	else if ((t = strstr(fn, "std::_Vector_base<")) != NULL && (t == fn || t[-1] == ' '))
		t += 18;
	else
		return 0;
	end = strstr(t, ", std::allocator<");
	if (!end)
		return 0;
	len = (size_t)(end - t);
	if (len && t[len - 1] == '*' && !memchr(t, '(', len))
		return 8;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (strlen(sizes[i].type) == len && strncmp(t, sizes[i].type, len) == 0)
			return sizes[i].size;
	return 0;
}

/*
 * A std::vector<T, std::allocator<T>>: _M_start, _M_finish,
 * _M_end_of_storage at 0, 8, 16. order: whether begin/end/capacity may be
 * compared (not while the crashing thread changes the vector: a
 * reallocation stores them one after the other).
 */
static void inspect_vector(struct prov_buf *b, const struct prov_frame *f, uint64_t obj, uint64_t esize,
			   int order, int partial, prov_stl_read_fn mem, void *arg)
{
	uint64_t v[3];
	uint8_t byte;
	struct prov_buf why = PROV_BUF_INIT;
	const char *field = "_M_start";

	if (mem(arg, obj, v, sizeof(v)) != 0)
		goto cleanup;
	if (v[0] == 0) {
		if (!order || (v[1] == 0 && v[2] == 0))
			goto cleanup;
		prov_buf_puts(&why, "NULL with a non-NULL _M_finish or _M_end_of_storage");
		goto said;
	}
	if (bad_pointer(v[0], mem, arg, partial, &why))
		goto said;
	field = !canonical(v[1]) ? "_M_finish" : "_M_end_of_storage";
	if (!canonical(v[1]) || !canonical(v[2])) {
		prov_buf_printf(&why, "0x%" PRIx64 " is not a canonical address",
				!canonical(v[1]) ? v[1] : v[2]);
		goto said;
	}
	if (!order)
		goto cleanup;
	field = "_M_start";
	if (v[0] > v[1]) {
		prov_buf_printf(&why, "0x%" PRIx64 " is past _M_finish 0x%" PRIx64 " (begin > end)", v[0], v[1]);
		goto said;
	}
	field = "_M_finish";
	if (v[1] > v[2]) {
		prov_buf_printf(&why, "0x%" PRIx64 " is past _M_end_of_storage 0x%" PRIx64
				" (size > capacity)", v[1], v[2]);
		goto said;
	}
	if (esize > 1 && ((v[1] - v[0]) % esize || (v[2] - v[0]) % esize)) {
		field = (v[1] - v[0]) % esize ? "_M_finish" : "_M_end_of_storage";
		prov_buf_printf(&why, "0x%" PRIx64 " is not a whole number of %" PRIu64
				"-byte elements from _M_start",
				(v[1] - v[0]) % esize ? v[1] : v[2], esize);
		goto said;
	}
	if (v[1] > v[0] && !partial && mem(arg, v[1] - 1, &byte, 1) != 0) {
		prov_buf_printf(&why, "0x%" PRIx64 ": the elements' last byte is not readable memory in the core",
				v[1]);
		goto said;
	}
	goto cleanup;
said:
	prov_buf_printf(b, "in frame #%d the vector at 0x%" PRIx64 " (`this`) has %s %s (_M_start 0x%" PRIx64
			", _M_finish 0x%" PRIx64 ", _M_end_of_storage 0x%" PRIx64 ")",
			f->index, obj, field, why.buf, v[0], v[1], v[2]);
cleanup:
	prov_buf_release(&why);
}

/*
 * A std::_Rb_tree with std::less and std::allocator (std::map, set,
 * multimap, multiset): the comparator's byte padded to 8, then the header
 * node (_M_color, _M_parent = the root, _M_left, _M_right) at 8, and
 * _M_node_count at 40. links: whether the root's parent and the count may
 * be checked (not while the crashing thread changes the tree: a rebalance
 * rotates through the root).
 */
static void inspect_tree(struct prov_buf *b, const struct prov_frame *f, uint64_t obj, int links,
			 int partial, prov_stl_read_fn mem, void *arg)
{
	uint64_t w[6], hdr = obj + 8, up = 0;
	struct prov_buf why = PROV_BUF_INIT;
	const char *field = "_M_header._M_parent (the root)";

	if (mem(arg, obj, w, sizeof(w)) != 0)
		goto cleanup;
	if (w[2] == 0) {
		if (!links || w[5] == 0)
			goto cleanup;
		prov_buf_printf(&why, "NULL (an empty tree) with _M_node_count %" PRIu64, w[5]);
		goto said;
	}
	if (bad_pointer(w[2], mem, arg, partial, &why))
		goto said;
	field = "_M_header._M_left (the leftmost node)";
	if (bad_pointer(w[3], mem, arg, partial, &why))
		goto said;
	field = "_M_header._M_right (the rightmost node)";
	if (bad_pointer(w[4], mem, arg, partial, &why))
		goto said;
	if (!links)
		goto cleanup;
	field = "_M_node_count";
	if (w[5] == 0) {
		prov_buf_puts(&why, "0 with a root node");
		goto said;
	}
	field = "_M_header._M_parent (the root)";
	if (mem(arg, w[2] + 8, &up, sizeof(up)) == 0 && up != hdr) {
		prov_buf_printf(&why, "0x%" PRIx64 " whose _M_parent 0x%" PRIx64 " is not the header 0x%" PRIx64,
				w[2], up, hdr);
		goto said;
	}
	goto cleanup;
said:
	prov_buf_printf(b, "in frame #%d the tree at 0x%" PRIx64 " (`this`) has %s %s (_M_header at 0x%" PRIx64
			": _M_parent 0x%" PRIx64 ", _M_left 0x%" PRIx64 ", _M_right 0x%" PRIx64
			"; _M_node_count %" PRIu64 ")",
			f->index, obj, field, why.buf, hdr, w[2], w[3], w[4], w[5]);
cleanup:
	prov_buf_release(&why);
}

/*
 * A std::__cxx11::list<T, std::allocator<T>>: the header node's _M_next,
 * _M_prev and _M_size at 0, 8, 16; a node's _M_next, _M_prev at 0, 8.
 * Walks from the header up to _M_size + 1 nodes (at most STL_WALK_MAX).
 * links: whether each node's _M_prev and the count may be checked (not
 * while the crashing thread changes the list: a hook links one side first).
 */
static void inspect_list(struct prov_buf *b, const struct prov_frame *f, uint64_t obj, int links,
			 int partial, prov_stl_read_fn mem, void *arg)
{
	uint64_t h[3], node, prev = obj, link[2], steps = 0;
	struct prov_buf why = PROV_BUF_INIT;
	const char *field = "_M_node._M_next";

	if (mem(arg, obj, h, sizeof(h)) != 0)
		goto cleanup;
	for (node = h[0]; node != obj; prev = node, node = link[0]) {
		if (bad_pointer(node, mem, arg, partial, &why)) {
			if (steps)
				field = "a node's _M_next";
			prov_buf_printf(&why, " (node %" PRIu64 " of the list)", steps + 1);
			goto said;
		}
		if (steps >= STL_WALK_MAX || mem(arg, node, link, sizeof(link)) != 0)
			goto cleanup;
		steps++;
		if (links && link[1] != prev) {
			field = "a node's _M_prev";
			prov_buf_printf(&why, "0x%" PRIx64 " where the node before it is at 0x%" PRIx64
					" (node %" PRIu64 " at 0x%" PRIx64 ": its predecessor's _M_next "
					"points at it, its _M_prev does not point back)",
					link[1], prev, steps, node);
			goto said;
		}
		if (links && steps > h[2]) {
			field = "_M_node's list";
			prov_buf_printf(&why, "more than _M_size %" PRIu64 " nodes", h[2]);
			goto said;
		}
	}
	if (links && steps != h[2]) {
		field = "_M_node's list";
		prov_buf_printf(&why, "%" PRIu64 " nodes where _M_size is %" PRIu64, steps, h[2]);
		goto said;
	}
	field = "_M_node._M_prev";
	if (bad_pointer(h[1], mem, arg, partial, &why))
		goto said;
	if (links && h[1] != prev) {
		prov_buf_printf(&why, "0x%" PRIx64 " is not the last node 0x%" PRIx64, h[1], prev);
		goto said;
	}
	goto cleanup;
said:
	prov_buf_printf(b, "in frame #%d the list at 0x%" PRIx64 " (`this`) has %s %s (_M_node._M_next 0x%" PRIx64
			", _M_node._M_prev 0x%" PRIx64 ", _M_size %" PRIu64 ")",
			f->index, obj, field, why.buf, h[0], h[1], h[2]);
cleanup:
	prov_buf_release(&why);
}

/* the family of a frame whose container's layout is known (standard allocator, comparator), or -1 */
static int plain_container(const char *fn)
{
	struct prov_buf name = PROV_BUF_INIT;
	int family = -1;

	if (plain_hashtable(fn))
		return FAM_HASH;
	if (prov_stl_family(fn, &name) < 0 || !name.buf || !strstr(fn, "std::allocator<"))
		goto cleanup;
	if (strncmp(name.buf, "std::vector<", 12) == 0 || strncmp(name.buf, "std::_Vector_base<", 18) == 0)
		family = FAM_VECTOR;
	else if ((strncmp(name.buf, "std::_Rb_tree<", 14) == 0 || strncmp(name.buf, "std::map<", 9) == 0 ||
		  strncmp(name.buf, "std::set<", 9) == 0 || strncmp(name.buf, "std::multimap<", 14) == 0 ||
		  strncmp(name.buf, "std::multiset<", 14) == 0) && strstr(fn, "std::less<"))
		family = FAM_TREE;
	else if (strncmp(name.buf, "std::__cxx11::list<", 19) == 0 ||
		 strncmp(name.buf, "std::__cxx11::_List_base<", 25) == 0)
		family = FAM_LIST;
cleanup:
	prov_buf_release(&name);
	return family;
}

/*
 * A list is half-linked only inside the methods that hook, unhook or free
 * nodes; remove, remove_if and unique call the predicate on a whole list.
 */
static const char *const relinkers[] = {
	"_M_clear", "~", "_M_erase", "_M_insert", "_M_hook", "_M_unhook", "_M_transfer", "swap",
	"reverse", "sort", "merge", "splice", "_M_default_append", "_M_fill", "resize", "assign",
	"operator=", "insert", "emplace", "push_", "pop_", "clear", "_M_move", NULL,
};

/* a frame of thread t on the list obj is in a method that relinks its nodes */
static int list_relinking(const struct prov_thread *t, uint64_t obj)
{
	struct prov_buf name = PROV_BUF_INIT;
	const char *m;
	size_t j, i;
	int r = 0;

	for (j = 0; j < t->nframes && j < STL_FRAMES && !r; j++) {
		prov_buf_reset(&name);
		if (prov_stl_family(t->frames[j].function, &name) != FAM_LIST || this_of(&t->frames[j]) != obj)
			continue;
		m = strstr(name.buf, ">::");
		m = m ? m + 3 : name.buf;
		for (i = 0; !r && relinkers[i]; i++)
			r = strstr(m, relinkers[i]) != NULL;
	}
	prov_buf_release(&name);
	return r;
}

#define STL_OBJECTS 8	/* container objects of the crashing thread inspected at most */

void prov_stl_inspect(struct prov_crash *c, prov_stl_read_fn mem, void *arg)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	struct prov_buf b = PROV_BUF_INIT;
	uint64_t obj, seen[STL_OBJECTS];
	size_t i, k, nseen = 0;
	int family, quiet;

	if (!t || !mem || c->stl_fields)
		return;
	/* every container object in the crashing thread's frames, innermost first */
	for (i = prov_thread_crash_frame(t); i < t->nframes && i < STL_FRAMES && !b.len; i++) {
		const struct prov_frame *f = &t->frames[i];

		if ((family = plain_container(f->function)) < 0 || !(obj = this_of(f)))
			continue;
		for (k = 0; k < nseen && seen[k] != obj; k++)
			;
		if (k < nseen || nseen == STL_OBJECTS)
			continue;
		seen[nseen++] = obj;
		/* the thread itself is not changing this object */
		quiet = family == FAM_LIST ? !list_relinking(t, obj) : thread_on(t, family, obj).writer < 0;
		if (family == FAM_HASH)
			inspect_hashtable(&b, f, obj, quiet, c->partial, mem, arg);
		else if (family == FAM_VECTOR)
			inspect_vector(&b, f, obj, element_size(f->function), quiet, c->partial, mem, arg);
		else if (family == FAM_TREE)
			inspect_tree(&b, f, obj, quiet, c->partial, mem, arg);
		else if (family == FAM_LIST)
			inspect_list(&b, f, obj, quiet, c->partial, mem, arg);
	}
	if (b.len)
		c->stl_fields = prov_buf_detach(&b);
	prov_buf_release(&b);
}
