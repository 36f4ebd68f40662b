#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "srcdefs.h"
#include "util.h"
#include "banned.h"

static void norm(const char *in, const char *want)
{
	char *got = prov_defs_normalize_name(in);

	if (!want) {
		if (got)
			fprintf(stderr, "'%s': expected NULL, got '%s'\n", in ? in : "(null)", got);
		assert_null(got);
		return;
	}
	if (!got || strcmp(got, want))
		fprintf(stderr, "'%s': expected '%s', got '%s'\n", in ? in : "(null)", want,
			got ? got : "(null)");
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_normalize(void **state)
{
	(void)state;
	norm("main", "main");
	norm("greet_format", "greet_format");
	norm("clock_nanosleep@GLIBC_2.2.5", "clock_nanosleep");
	norm("compute.cold", "compute");
	norm("compute.isra.0", "compute");
	norm("ns::Klass::method(int, char const*) const", "ns::Klass::method");
	norm("void ns::apply<int>(int*, unsigned long)", "ns::apply");
	norm("ns::Box<std::vector<int, std::allocator<int> > >::get() const", "ns::Box::get");
	norm("(anonymous namespace)::helper(int)", "helper");
	norm("ns::Klass::~Klass()", "ns::Klass::~Klass");
	norm("ns::Klass::operator()(int)", "ns::Klass::operator()");
	norm("ns::operator<<(std::ostream&, ns::Klass const&)", "ns::operator<<");
	norm("ns::Klass::operator==(ns::Klass const&) const", "ns::Klass::operator==");
	norm("", NULL);
	norm(NULL, NULL);
	norm("(", NULL);
}

static int has(const struct prov_defs *d, const char *qname, int line)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].qname, qname) && d->items[i].line == line)
			return 1;
	return 0;
}

static void dump(const struct prov_defs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fprintf(stderr, "  %s:%d %s\n", d->items[i].path, d->items[i].line, d->items[i].qname);
}

static void test_scan_c(void **state)
{
	static const char src[] =
		"#include <stdio.h>\n"				/* 1 */
		"#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"	/* 2 */
		"struct greeter { const char *name; };\n"	/* 3 */
		"static int table[] = { 1, 2, 3 };\n"		/* 4 */
		"/* int fake(void) { } */\n"			/* 5 */
		"static int name_length(const struct greeter *g)\n" /* 6 */
		"{\n"						/* 7 */
		"	const char *s = \"a { b\";\n"		/* 8 */
		"	return (int)strlen(g->name);\n"		/* 9 */
		"}\n"						/* 10 */
		"struct greeter *greet_parse(const char *spec) {\n" /* 11 */
		"	return 0;\n"				/* 12 */
		"}\n"						/* 13 */
		"__attribute__((noinline)) int\n"		/* 14 */
		"helper(int x)\n"				/* 15 */
		"{ return x; }\n"				/* 16 */
		"int (*pick(int k))(int) { return 0; }\n"	/* 17 */
		"extern \"C\" {\n"				/* 18 */
		"int c_api(void) { return 1; }\n"		/* 19 */
		"}\n"						/* 20 */
		"int declared(void);\n";			/* 21 */
	struct prov_defs d = { 0 };

	(void)state;
	prov_defs_scan_text(&d, "src/greet.c", src, sizeof(src) - 1);
	dump(&d);
	assert_true(has(&d, "name_length", 6));
	assert_true(has(&d, "greet_parse", 11));
	assert_true(has(&d, "helper", 15));
	assert_true(has(&d, "c_api", 19));
	assert_false(has(&d, "fake", 5));
	assert_false(has(&d, "declared", 21));
	assert_false(has(&d, "MAX", 2));
	assert_false(has(&d, "int", 17));
	assert_string_equal(d.items[0].path, "src/greet.c");
	prov_defs_release(&d);
}

static void test_scan_cxx(void **state)
{
	static const char src[] =
		"namespace outer {\n"				/* 1 */
		"namespace inner {\n"				/* 2 */
		"class Alpha : public Base {\n"			/* 3 */
		" public:\n"					/* 4 */
		"  int process(int v) const { return v; }\n"	/* 5 */
		"  Alpha() : a_(1), b_{2} {}\n"			/* 6 */
		"  ~Alpha();\n"					/* 7 */
		"};\n"						/* 8 */
		"struct Beta {\n"				/* 9 */
		"  int process(int v);\n"			/* 10 */
		"  bool operator==(const Beta &o) const { return true; }\n" /* 11 */
		"};\n"						/* 12 */
		"int Beta::process(int v)\n"			/* 13 */
		"{\n"						/* 14 */
		"  auto f = [](int x) { return x; };\n"		/* 15 */
		"  return f(v);\n"				/* 16 */
		"}\n"						/* 17 */
		"Alpha::~Alpha() {}\n"				/* 18 */
		"template <typename T> T twice(T x) { return x + x; }\n" /* 19 */
		"template <class T> struct Box { T get() const { return t; } T t; };\n" /* 20 */
		"template <class T> T Box<T>::put() { return t; }\n" /* 21 */
		"}  // namespace inner\n"			/* 22 */
		"}  // namespace outer\n"			/* 23 */
		"namespace a::b { void nested() {} }\n"		/* 24 */
		"__global__ void kernel(float *x) { x[0] = 1; }\n" /* 25 */
		"enum class Color : int { Red, Green };\n"	/* 26 */
		"auto R = R\"x(int nope() { })x\";\n";		/* 27 */
	struct prov_defs d = { 0 };

	(void)state;
	prov_defs_scan_text(&d, "lib/x.cpp", src, sizeof(src) - 1);
	dump(&d);
	assert_true(has(&d, "outer::inner::Alpha::process", 5));
	assert_true(has(&d, "outer::inner::Alpha::Alpha", 6));
	assert_true(has(&d, "outer::inner::Beta::operator==", 11));
	assert_true(has(&d, "outer::inner::Beta::process", 13));
	assert_true(has(&d, "outer::inner::Alpha::~Alpha", 18));
	assert_true(has(&d, "outer::inner::twice", 19));
	assert_true(has(&d, "outer::inner::Box::get", 20));
	assert_true(has(&d, "outer::inner::Box::put", 21));
	assert_true(has(&d, "a::b::nested", 24));
	assert_true(has(&d, "kernel", 25));
	assert_false(has(&d, "nope", 27));
	assert_int_equal(d.n, 10);
	prov_defs_release(&d);
}

static void test_match(void **state)
{
	(void)state;
	assert_int_equal(prov_defs_match("ns::A::process", "ns::A::process"), 2);
	assert_int_equal(prov_defs_match("A::process", "ns::A::process"), 1);
	assert_int_equal(prov_defs_match("ns::B::process", "ns::A::process"), 0);
	assert_int_equal(prov_defs_match("process", "ns::A::process"), 1);
	assert_int_equal(prov_defs_match("xprocess", "process"), 0);
	assert_int_equal(prov_defs_match(NULL, "a"), 0);
}

static void test_hostile(void **state)
{
	struct prov_defs d = { 0 };
	char *deep = prov_xmalloc(200001);
	size_t i;

	(void)state;
	/* unbalanced, deeply nested, truncated input: no crash, no hang */
	for (i = 0; i < 100000; i++) {
		deep[2 * i] = i % 2 ? '{' : '(';
		deep[2 * i + 1] = 'x';
	}
	deep[200000] = '\0';
	prov_defs_scan_text(&d, "a.c", deep, 200000);
	prov_defs_scan_text(&d, "b.c", "namespace a { class B { int f( { } } } } }", 43);
	prov_defs_scan_text(&d, "c.c", "\"unterminated", 13);
	prov_defs_scan_text(&d, "d.c", "/* open", 7);
	prov_defs_scan_text(&d, "e.c", "R\"abc(never closed", 18);
	free(deep);
	prov_defs_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_scan_c),
		cmocka_unit_test(test_scan_cxx),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
